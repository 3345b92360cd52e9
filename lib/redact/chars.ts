/**
 * Character codes the rules compare with, by name (`s.charCodeAt(i) === EQUALS`). Plain numeric
 * constants: V8 folds them into the comparisons, so naming them costs nothing.
 */

export const TAB = 0x09;
export const SPACE = 0x20;
/** `"` */
export const QUOTE = 0x22;
export const HASH = 0x23;
export const PERCENT = 0x25;
export const AMPERSAND = 0x26;
/** `'` */
export const APOSTROPHE = 0x27;
export const LEFT_PAREN = 0x28;
export const RIGHT_PAREN = 0x29;
export const PLUS = 0x2b;
export const COMMA = 0x2c;
/** `-` */
export const HYPHEN = 0x2d;
export const DOT = 0x2e;
export const SLASH = 0x2f;
export const DIGIT_0 = 0x30;
export const DIGIT_9 = 0x39;
export const COLON = 0x3a;
export const SEMICOLON = 0x3b;
export const LESS_THAN = 0x3c;
export const EQUALS = 0x3d;
export const GREATER_THAN = 0x3e;
export const QUESTION_MARK = 0x3f;
export const AT_SIGN = 0x40;
export const UPPER_A = 0x41;
export const UPPER_F = 0x46;
export const UPPER_Z = 0x5a;
export const LEFT_BRACKET = 0x5b;
export const BACKSLASH = 0x5c;
export const RIGHT_BRACKET = 0x5d;
export const UNDERSCORE = 0x5f;
/** `` ` `` */
export const BACKTICK = 0x60;
export const LOWER_A = 0x61;
export const LOWER_F = 0x66;
export const LOWER_U = 0x75;
export const LOWER_X = 0x78;
export const LOWER_Z = 0x7a;
export const LEFT_BRACE = 0x7b;
export const PIPE = 0x7c;
export const RIGHT_BRACE = 0x7d;
export const TILDE = 0x7e;
export const DELETE = 0x7f;
