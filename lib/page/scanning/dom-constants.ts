/**
 * The DOM's numeric constants (Node.*, NodeFilter.*) as plain numbers, for the content script's
 * hot paths: `Node.X` is a global property read on each use (a position check per candidate text
 * of a plain row), longer in the bundle, and absent where a module is used without the
 * DOM's globals (unit tests of the store). The values are fixed by the DOM standard.
 */
export const ELEMENT_NODE = 1;
export const TEXT_NODE = 3;
export const DOCUMENT_NODE = 9;
export const DOCUMENT_POSITION_DISCONNECTED = 1;
export const DOCUMENT_POSITION_FOLLOWING = 4;
export const DOCUMENT_POSITION_CONTAINED_BY = 16;
export const SHOW_ELEMENT = 1;
export const SHOW_TEXT = 4;
