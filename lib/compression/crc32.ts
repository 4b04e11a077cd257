/*
 * CRC-32 arithmetic for the spliced gzip answers (spliced-gzip.ts): the CRC of two byte strings
 * joined, from each one's CRC (zlib's crc32_combine), is the first CRC multiplied, modulo the
 * CRC polynomial, by x to the power of 8 × the second's length. Kept pieces carry that power
 * (`shift`), so a page's CRC costs one multiplication per kept piece instead of reading all of
 * the page's bytes again.
 */
const CRC_POLY = 0xedb88320;

/** a × b modulo the CRC polynomial, in the reflected bit order CRC-32 uses. */
export function crcMultiply(a: number, b: number): number {
  if (a === 0) return 0;
  let m = 0x80000000;
  let p = 0;
  for (;;) {
    if (a & m) {
      p ^= b;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    b = b & 1 ? (b >>> 1) ^ CRC_POLY : b >>> 1;
  }
  return p >>> 0;
}

/** x^(2^k) modulo the polynomial, for k = 0…31. */
const X_POWERS = (() => {
  const powers = [0x40000000];
  for (let k = 1; k < 32; k++) powers.push(crcMultiply(powers[k - 1]!, powers[k - 1]!));
  return powers;
})();

/** The operator that moves a CRC past `length` bytes: x^(8 × length) modulo the polynomial. */
export function crc32Shift(length: number): number {
  let p = 0x80000000;
  let k = 3;
  for (let n = length; n > 0; n = Math.floor(n / 2), k++) if (n & 1) p = crcMultiply(X_POWERS[k & 31]!, p);
  return p;
}

/** The CRC-32 of A followed by B, from A's CRC, B's CRC and B's `crc32Shift`. */
export const crc32Combine = (crcA: number, crcB: number, shiftB: number) => (crcMultiply(shiftB, crcA) ^ crcB) >>> 0;
