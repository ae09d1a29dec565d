/**
 * The layering rules ESLint cannot see, because they are about the whole import graph rather
 * than one file (see docs/architecture.md):
 *   - no import cycle, type-only imports included (a type cycle still couples two modules);
 *   - the content script's runtime graph (type-only imports are erased) never reaches zod or
 *     lib/settings: zod would ship to every scanned page, and settings hold the API key;
 *   - no source, script or test names a tracker number ("issue" or "stop" and a number): a
 *     reader of the repository cannot open our tracker, so a comment carries its reason itself
 *     (a check of the whole tree's text, printed as file:line).
 * Built on the TypeScript compiler API (already a dependency). `npx tsx scripts/check-architecture.ts`
 * prints the findings; test/unit/architecture.test.ts runs the same checks in `npm test`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export interface ImportEdge {
  to: string;
  /** Erased at build time (`import type`, or every named import marked `type`). */
  typeOnly: boolean;
}
export type ImportGraph = Map<string, ImportEdge[]>;

const SELF = fileURLToPath(import.meta.url);
const ROOT = path.resolve(path.dirname(SELF), '..');
/** The folders that make the extension (tests, benchmarks and tools may import anything). */
const SOURCE_DIRS = ['lib', 'entrypoints', 'components'];
export const CONTENT_ENTRY = 'entrypoints/content/index.ts';
/** What the content script must never load at run time. */
export const CONTENT_FORBIDDEN: readonly { name: string; matches: (target: string) => boolean }[] = [
  { name: 'zod', matches: (t) => t === 'zod' || t.startsWith('zod/') },
  { name: 'lib/settings', matches: (t) => t.startsWith('lib/settings/') || t === 'lib/settings.ts' },
];

function loadCompilerOptions(): ts.CompilerOptions {
  const configPath = path.join(ROOT, 'tsconfig.json');
  const config = ts.readConfigFile(configPath, (f) => ts.sys.readFile(f));
  return ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT).options;
}

function sourceFiles(): string[] {
  return SOURCE_DIRS.flatMap((dir) =>
    ts.sys.readDirectory(path.join(ROOT, dir), ['.ts', '.tsx'], ['**/*.d.ts'], undefined),
  );
}

function isTypeOnly(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isImportDeclaration(node)) {
    const clause = node.importClause;
    if (!clause) return false; // a side-effect import runs
    if (clause.isTypeOnly) return true;
    const named = clause.namedBindings;
    return !clause.name && !!named && ts.isNamedImports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly);
  }
  if (node.isTypeOnly) return true;
  const clause = node.exportClause;
  return !!clause && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((e) => e.isTypeOnly);
}

/** Module specifiers of a file: static imports, re-exports and dynamic import() calls. */
function importsOf(file: string): { specifier: string; typeOnly: boolean }[] {
  const text = ts.sys.readFile(file) ?? '';
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const found: { specifier: string; typeOnly: boolean }[] = [];
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({ specifier: node.moduleSpecifier.text, typeOnly: isTypeOnly(node) });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteral(arg)) found.push({ specifier: arg.text, typeOnly: false });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push({ specifier: node.argument.literal.text, typeOnly: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Our files by path from the root; packages by name (`zod`, `wxt/browser`). */
export function buildGraph(): ImportGraph {
  const options = loadCompilerOptions();
  const host = ts.createCompilerHost(options);
  const graph: ImportGraph = new Map();
  for (const file of sourceFiles()) {
    const edges: ImportEdge[] = [];
    for (const { specifier, typeOnly } of importsOf(file)) {
      const resolved = ts.resolveModuleName(specifier, file, options, host).resolvedModule;
      let to: string;
      if (!resolved || resolved.isExternalLibraryImport) {
        // A package (or a CSS / asset import, which only the bundler resolves).
        if (specifier.startsWith('.') || specifier.startsWith('@/')) continue;
        to = specifier;
      } else {
        to = path.relative(ROOT, resolved.resolvedFileName).split(path.sep).join('/');
      }
      edges.push({ to, typeOnly });
    }
    graph.set(path.relative(ROOT, file).split(path.sep).join('/'), edges);
  }
  return graph;
}

/** Every cycle's members (strongly connected components of more than one file, or a self-import). */
export function findCycles(graph: ImportGraph): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const connect = (v: string) => {
    indices.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const { to } of graph.get(v) ?? []) {
      if (!graph.has(to)) continue;
      if (!indices.has(to)) {
        connect(to);
        low.set(v, Math.min(low.get(v)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(v, Math.min(low.get(v)!, indices.get(to)!));
      }
    }
    if (low.get(v) === indices.get(v)) {
      const members: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        members.push(w);
      } while (w !== v);
      const selfImport = (graph.get(v) ?? []).some((e) => e.to === v);
      if (members.length > 1 || selfImport) cycles.push(members.sort());
    }
  };
  for (const v of graph.keys()) if (!indices.has(v)) connect(v);
  return cycles;
}

/** The import chains by which `entry` loads a forbidden module at run time (one per target). */
export function forbiddenRuntimeImports(graph: ImportGraph, entry: string, forbidden = CONTENT_FORBIDDEN): string[] {
  const via = new Map<string, string | null>([[entry, null]]);
  const queue = [entry];
  const found: string[] = [];
  const chain = (end: string) => {
    const steps = [end];
    for (let at = via.get(end); at; at = via.get(at)) steps.unshift(at);
    return steps.join(' -> ');
  };
  while (queue.length) {
    const file = queue.shift()!;
    for (const { to, typeOnly } of graph.get(file) ?? []) {
      if (typeOnly || via.has(to)) continue;
      via.set(to, file);
      const rule = forbidden.find((f) => f.matches(to));
      if (rule) found.push(`${rule.name}: ${chain(to)}`);
      else queue.push(to);
    }
  }
  return found;
}

/** Where tracker numbers are not allowed: every folder of code, scripts and tests. */
export const TRACKER_FREE_DIRS = ['lib', 'components', 'entrypoints', 'scripts', 'gateway', 'test'];
/** The IP and CIDR corpora are data (a log line may say anything), not our prose; test pages' comments are ours. */
const TRACKER_EXEMPT = ['test/fixtures/ip-corpus', 'test/fixtures/cidr-corpus'];
const TEXT_FILE = /\.(?:[cm]?[jt]sx?|css|html)$/;
/** "issue" or "stop", singular or plural, any case, then a number (a `#` before it too). */
const TRACKER_NUMBER = /\b(?:issues?|stops?) #?\d+/gi;

/** `line: text` of each tracker number in one file's text (lines counted from 1). */
export function trackerNumbersIn(text: string): { line: number; found: string }[] {
  const hits: { line: number; found: string }[] = [];
  text.split('\n').forEach((line, i) => {
    for (const m of line.matchAll(TRACKER_NUMBER)) hits.push({ line: i + 1, found: m[0] });
  });
  return hits;
}

function textFilesUnder(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(path.join(ROOT, dir), { withFileTypes: true });
  } catch {
    return []; // a folder this branch does not have (gateway/ before it lands)
  }
  return entries.flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.name === 'node_modules' || TRACKER_EXEMPT.includes(rel)) return [];
    if (e.isDirectory()) return textFilesUnder(rel);
    return TEXT_FILE.test(e.name) ? [rel] : [];
  });
}

/** `file:line: found` of every tracker number left in TRACKER_FREE_DIRS. */
export function trackerNumbers(dirs: readonly string[] = TRACKER_FREE_DIRS): string[] {
  return dirs.flatMap((dir) =>
    textFilesUnder(dir).flatMap((file) =>
      trackerNumbersIn(readFileSync(path.join(ROOT, file), 'utf8')).map((h) => `${file}:${h.line}: ${h.found}`),
    ),
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === SELF) {
  const graph = buildGraph();
  const cycles = findCycles(graph);
  const leaks = forbiddenRuntimeImports(graph, CONTENT_ENTRY);
  for (const cycle of cycles) console.error(`import cycle: ${cycle.join(' <-> ')}`);
  for (const leak of leaks) console.error(`content script loads ${leak}`);
  const numbers = trackerNumbers();
  for (const at of numbers) console.error(`tracker number (say the reason instead): ${at}`);
  console.log(`${graph.size} files, ${cycles.length} cycles, ${leaks.length} forbidden imports in the content script, ${numbers.length} tracker numbers`);
  process.exitCode = cycles.length || leaks.length || numbers.length ? 1 : 0;
}
