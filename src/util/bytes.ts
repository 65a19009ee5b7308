// Small functions on bytes that more than one layer reads with (the CSV scanner, the byte layer, the table reader).

/** How many line feeds buf[start, end) holds. */
export function countLf(buf: Uint8Array, start: number, end: number): number {
  let n = 0;
  for (let i = buf.indexOf(10, start); i >= 0 && i < end; i = buf.indexOf(10, i + 1)) n++;
  return n;
}
