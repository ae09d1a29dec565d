/**
 * `npm run bench extract`: lib/ip findIps against ip-regex (+ ipaddr.js validation) and
 * ioc-extractor, in one process on the same inputs, with the same output (canonical
 * addresses). Prints accuracy on the labeled corpus, throughput on a generated SIEM corpus,
 * scaling and heap on 50 MB with a million addresses, and hostile inputs.
 */
import { findIps, forEachIp } from '../../lib/ip';
import { loadCorpus } from '../fixtures/ip-corpus/load-corpus';
import { scoreAddresses, scoreMatches } from '../fixtures/ip-corpus/score';
import { cpuMs, fmt, heapMb, median, megabytes, settledHeapMb } from './extract/measure';
import { generateSiemCorpus } from './extract/siem-corpus';
import { EXTRACTORS } from './extract/tools';

const THROUGHPUT_BYTES = 10_000_000;
const HOSTILE_BYTES = 5_000_000;
const ROUNDS = 3;

function accuracy(): void {
  const cases = loadCorpus();
  const total = cases.reduce((n, c) => n + c.expected.length, 0);
  console.log(`\nLabeled corpus: ${cases.length} cases, ${total} addresses (per-case sets of canonical addresses)`);
  console.log(`  ${'tool'.padEnd(24)} precision   recall      fp      fn`);
  for (const tool of EXTRACTORS) {
    const s = scoreAddresses(cases, tool.extract);
    console.log(`  ${tool.name.padEnd(24)} ${fmt(s.precision, 4)} ${fmt(s.recall, 4)} ${String(s.falsePositives).padStart(7)} ${String(s.falseNegatives).padStart(7)}`);
    if (s.wrong.length) console.log(`      e.g. wrong: ${s.wrong.slice(0, 4).join(' | ')}`);
    if (s.missed.length) console.log(`      e.g. missed: ${s.missed.slice(0, 4).join(' | ')}`);
  }
  const exact = scoreMatches(cases, findIps);
  console.log(`  lib/ip with exact offsets: precision ${exact.precision.toFixed(4)}, recall ${exact.recall.toFixed(4)}`);
}

function throughput(): void {
  const text = generateSiemCorpus(THROUGHPUT_BYTES);
  const mb = megabytes(text.length);
  console.log(`\nGenerated SIEM corpus: ${mb.toFixed(1)} MB, ${text.split('\n').length} lines; CPU time, median of ${ROUNDS} interleaved rounds`);
  const warm = text.slice(0, 500_000);
  for (const tool of EXTRACTORS) tool.extract(warm);
  const times = new Map<string, number[]>(EXTRACTORS.map((t) => [t.name, []]));
  const found = new Map<string, number>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const tool of EXTRACTORS) {
      let result: string[] = [];
      times.get(tool.name)!.push(cpuMs(() => (result = tool.extract(text))));
      found.set(tool.name, new Set(result).size);
    }
  }
  const ours = median(times.get(EXTRACTORS[0]!.name)!);
  console.log(`  ${'tool'.padEnd(24)}     MB/s   unique addresses   ours faster by`);
  for (const tool of EXTRACTORS) {
    const ms = median(times.get(tool.name)!);
    const ratio = tool === EXTRACTORS[0] ? '' : `${(ms / ours).toFixed(1)}x`;
    console.log(`  ${tool.name.padEnd(24)} ${fmt(mb / (ms / 1000))} ${String(found.get(tool.name)).padStart(18)}   ${ratio.padStart(14)}`);
  }
}

function largeInput(): void {
  console.log('\nLarge input (forEachIp, nothing kept): CPU time and peak heap growth by size; linear = flat MB/s');
  console.log(`  ${'MB'.padStart(6)} ${'addresses'.padStart(10)} ${'cpu ms'.padStart(8)} ${'MB/s'.padStart(8)} ${'heap +MB'.padStart(9)}`);
  for (const bytes of [12_500_000, 25_000_000, 50_000_000]) {
    let text = generateSiemCorpus(bytes, { dense: true });
    const before = settledHeapMb();
    let count = 0;
    let peak = before;
    const runs: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      count = 0;
      runs.push(
        cpuMs(() =>
          forEachIp(text, () => {
            if ((++count & 0xffff) === 0) peak = Math.max(peak, heapMb());
          }),
        ),
      );
    }
    const ms = median(runs);
    console.log(`  ${fmt(megabytes(text.length))} ${String(count).padStart(10)} ${fmt(ms, 0)} ${fmt(megabytes(text.length) / (ms / 1000))} ${fmt(peak - before)}`);
    if (bytes === 50_000_000) {
      const settled = settledHeapMb();
      const all = findIps(text);
      console.log(`  findIps on the same 50 MB keeps ${all.length} matches: +${(heapMb() - settled).toFixed(0)} MB heap for the array`);
    }
    text = '';
  }
}

function hostile(): void {
  const size = HOSTILE_BYTES;
  console.log(`\nHostile inputs, ${size / 1e6} MB each (lib/ip; linear scan, so MB/s stays in the same range)`);
  const inputs: [string, string][] = [
    ['dots', '.'],
    ['colons', ':'],
    ['digit-dot', '1.'],
    ['hex-colon', 'ab:'],
    ['dotted chain', '1.1.1.1.'],
    ['defang chain', '1[.]'],
    ['hex letters', 'f'],
  ];
  for (const [name, unit] of inputs) {
    const text = unit.repeat(Math.ceil(size / unit.length));
    const ms = median([0, 1, 2].map(() => cpuMs(() => findIps(text))));
    console.log(`  ${name.padEnd(14)} ${fmt(megabytes(text.length) / (ms / 1000))} MB/s   ${findIps(text).length} matches`);
  }
}

export async function run(): Promise<void> {
  accuracy();
  throughput();
  largeInput();
  hostile();
}
