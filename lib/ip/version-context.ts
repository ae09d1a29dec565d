/**
 * Four-part versions that look exactly like addresses. Two shapes are common enough in SIEM
 * data to matter, and both would colour (and spend quota on) a public-looking "address":
 * - user agents in every web log: `Chrome/120.0.0.0`, `Edg/120.0.0.0` (RFC 9110 `product/version`);
 * - .NET assembly names and agent fields: `Version=4.0.0.0`, `"version":"10.2.0.12"`,
 *   `FileVersion: 6.3.9600.1`, `build 1.0.0.1`; and section numbers (`§1.2.3.4`).
 * Path segments (`/ip-address/8.8.8.8`) and other key names are left alone.
 */

/**
 * Whole words that introduce a version, an object identifier (`OID 2.5.4.3`) or a document
 * section (`section 12.2.4.69`, CIS benchmark controls such as `CIS 1.1.1.1`).
 */
const KEYWORDS = ['ver', 'build', 'oid', 'section', 'sections', 'chapter', 'clause', 'cis'];

const SKIPPABLE = new Set([32, 9, 58, 61, 34, 39, 40]); // space tab : = " ' (

function isLetter(code: number): boolean {
  return (code | 32) >= 97 && (code | 32) <= 122;
}

function isAlnum(code: number): boolean {
  return isLetter(code) || (code >= 48 && code <= 57);
}

/** True when the IPv4 starting at `start` is a version number by its context. */
export function isVersionContext(text: string, start: number): boolean {
  const before = text.charCodeAt(start - 1);
  if (before === 47) return isProductToken(text, start - 1); // '/'
  if (before === 0xa7) return true; // '§1.2.3.4'
  let i = start - 1;
  const limit = Math.max(0, start - 4);
  while (i >= limit && SKIPPABLE.has(text.charCodeAt(i))) i--;
  if (i < 0 || !isLetter(text.charCodeAt(i))) return false;
  const wordEnd = i + 1;
  // Bounded: a longer word is no keyword, and `...Version` is found within the last letters.
  while (i >= 0 && wordEnd - i <= 32 && isLetter(text.charCodeAt(i))) i--;
  const wordStart = i + 1;
  if (endsWithLower(text, wordEnd, 'version', wordStart)) return true;
  // Short keywords must be whole words: "server 1.2.3.4" is not "ver 1.2.3.4". By index, not
  // for-of: until the optimizing compiler takes this over, each step of an array iterator is an
  // object, and this runs for every IPv4 address found (1.1 MB allocated in the 10,000-row
  // table's first pass, a heap sampling of bench page-phases' harness).
  const length = wordEnd - wordStart;
  for (let k = 0; k < KEYWORDS.length; k++) {
    const keyword = KEYWORDS[k]!;
    if (length === keyword.length && endsWithLower(text, wordEnd, keyword, wordStart)) return true;
  }
  return false;
}

/** Case-insensitive `text[from, end)` ends with `word`, compared in place (this runs per match). */
function endsWithLower(text: string, end: number, word: string, from: number): boolean {
  if (end - from < word.length) return false;
  for (let k = 1; k <= word.length; k++) {
    if ((text.charCodeAt(end - k) | 32) !== word.charCodeAt(word.length - k)) return false;
  }
  return true;
}

/**
 * `Chrome/` in a user agent: a capitalised alphanumeric token after a space, `(` or `;` that
 * is a known browser or sits in a user agent (they all start `Mozilla/`). Squid's
 * `HIER_DIRECT/1.2.3.4` and URL paths such as `/ip-address/8.8.8.8` are addresses.
 */
function isProductToken(text: string, slash: number): boolean {
  let i = slash - 1;
  while (i >= 0 && slash - i <= 32 && isAlnum(text.charCodeAt(i))) i--;
  const tokenStart = i + 1;
  if (tokenStart === slash) return false;
  const first = text.charCodeAt(tokenStart);
  if (first < 65 || first > 90) return false;
  if (i >= 0) {
    const prev = text.charCodeAt(i);
    if (!TOKEN_BEFORE.has(prev)) return false;
  }
  if (BROWSERS.has(text.slice(tokenStart, slash))) return true;
  // A bounded look back keeps this constant-time per candidate.
  return text.slice(Math.max(0, tokenStart - USER_AGENT_REACH), tokenStart + 8).includes('Mozilla/');
}

/** Browser product tokens that carry four-part versions, also seen outside a full user agent. */
const BROWSERS = new Set([
  'Chrome', 'Chromium', 'HeadlessChrome', 'CriOS', 'Edg', 'EdgA', 'EdgiOS', 'Edge', 'OPR', 'Opera',
  'Firefox', 'FxiOS', 'Safari', 'Version', 'YaBrowser', 'SamsungBrowser', 'Vivaldi', 'Brave',
  'UCBrowser', 'Electron', 'AppleWebKit', 'Trident', 'MSIE',
]);

/** What precedes a product token: space, tab, `(`, `;`, `"`, and `+` (IIS logs encode spaces so). */
const TOKEN_BEFORE = new Set([32, 9, 40, 59, 34, 43]);

/** The longest user agents seen in web logs are about 400 characters. */
const USER_AGENT_REACH = 512;
