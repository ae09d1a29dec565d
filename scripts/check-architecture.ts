/**
 * The layering rules ESLint cannot see, because they are about the whole import graph rather
 * than one file (see docs/architecture.md):
 *   - no import cycle, type-only imports included (a type cycle still couples two modules);
 *   - the content script's runtime graph (type-only imports are erased) never reaches zod or
 *     lib/settings: zod would ship to every scanned page, and settings hold the API key.
 * Built on the TypeScript compiler API (already a dependency). `npx tsx scripts/check-architecture.ts`
 * prints the findings; test/unit/architecture.test.ts runs the same checks in `npm test`.
 */
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

if (process.argv[1] && path.resolve(process.argv[1]) === SELF) {
  const graph = buildGraph();
  const cycles = findCycles(graph);
  const leaks = forbiddenRuntimeImports(graph, CONTENT_ENTRY);
  for (const cycle of cycles) console.error(`import cycle: ${cycle.join(' <-> ')}`);
  for (const leak of leaks) console.error(`content script loads ${leak}`);
  console.log(`${graph.size} files, ${cycles.length} cycles, ${leaks.length} forbidden imports in the content script`);
  process.exitCode = cycles.length || leaks.length ? 1 : 0;
}
