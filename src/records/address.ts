const SEGMENT = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** True when `value` is one address segment: `[a-z0-9][a-z0-9_-]{0,63}`. */
export function isAddressSegment(value: string): boolean {
  return SEGMENT.test(value);
}

/** True when `value` is a compiled address: segments joined by `.`. */
export function isAddress(value: string): boolean {
  return value.split(".").every(isAddressSegment);
}
