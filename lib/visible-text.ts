/**
 * Bidirectional controls (U+202E RIGHT-TO-LEFT OVERRIDE and friends) reorder the text around
 * them: "…\u202Elive" from a page or an API answer would show as "evil…" to an analyst. Text
 * we did not write is shown with each control replaced by a visible marker, so what is on
 * screen and in exports is what was sent.
 */
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

function codePoint(char: string): string {
  return `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** `a\u202Eb` -> `a[U+202E]b`: every bidi control made visible. */
export function showBidiControls(text: string): string {
  return text.replace(BIDI_CONTROLS, (c) => `[${codePoint(c)}]`);
}

export function hasBidiControls(text: string): boolean {
  BIDI_CONTROLS.lastIndex = 0;
  const found = BIDI_CONTROLS.test(text);
  BIDI_CONTROLS.lastIndex = 0;
  return found;
}

/** For JSON text: each control written as its `\uXXXX` escape (same data, visible in any editor). */
export function escapeBidiInJson(json: string): string {
  return json.replace(BIDI_CONTROLS, (c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`);
}
