/**
 * zod for every module of the extension: import `z` from here, never from 'zod' itself.
 *
 * zod 4 compiles object parsers with `new Function` unless told not to, and probes for that
 * when the first object schema is built. Extension pages forbid eval, so the probe is a CSP
 * violation in the browser console (Firefox reports it even though zod catches the throw). The
 * config has to be set before any schema exists; a module that imports `z` from here is
 * evaluated after this one, so importing through it is what guarantees the order in every
 * bundle (background, pages, content script). Parsing stays the same, minus the JIT.
 */
import { z } from 'zod';

z.config({ jitless: true });

export { z };
