const PORTABLE_IDENTIFIER = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** True when `value` is a RAES portable identifier, which is also a valid address segment. */
export function isPortableIdentifier(value: string): boolean {
  return PORTABLE_IDENTIFIER.test(value);
}
