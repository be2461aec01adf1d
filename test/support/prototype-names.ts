/**
 * Names every plain object answers to through its prototype: a lookup keyed by input in an object
 * literal finds them (`{}["constructor"]` is `Object`), so each lookup's tests and fuzz corpus name them.
 */
export const PROTOTYPE_NAMES = ['constructor', 'toString', 'hasOwnProperty', '__proto__', 'valueOf'] as const;

/** True when `text` shows a built-in function written out, as an answer built from an inherited member does. */
export function showsInheritedMember(text: string): boolean {
  return text.includes('[native code]');
}
