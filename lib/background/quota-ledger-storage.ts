/**
 * Where the quota ledger lives between service worker runs: storage.local, next to the
 * settings, so a restarted worker still knows what it spent since the last /account refresh.
 */
import { storage } from 'wxt/utils/storage';
import type { LedgerStore, QuotaLedger } from '../lookup/quota-ledger';

const ledgerItem = storage.defineItem<QuotaLedger | null>('local:quotaLedger', { fallback: null });

export const storageLedgerStore: LedgerStore = {
  load: () => ledgerItem.getValue(),
  save: (ledger) => ledgerItem.setValue(ledger),
};
