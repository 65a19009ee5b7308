// CSV records (RFC 4180: quoted cells, doubled quotes, CRLF or LF) from byte chunks, for the Nsight Systems
// exports: `nsys stats --format csv` quotes a cell when it holds a comma or a quote (kernel names do). Chunks
// may cut anywhere, a multi-byte character included. A record longer than `maxRecordChars` is refused: memory
// stays bounded whatever the file holds.

import { StringDecoder } from 'node:string_decoder';

export const MAX_RECORD_CHARS = 16 << 20;

const QUOTE = 34;
const COMMA = 44;
const LF = 10;
const CR = 13;

export class CsvRecords {
  private readonly decoder = new StringDecoder('utf8');
  private cells: string[] = [];
  private cellsChars = 0;
  private cell = '';
  private quoted = false;
  /** Inside quotes, a quote ended the last chunk: the next character decides (a doubled quote, or the end). */
  private quotePending = false;
  /** The record has a cell already (a comma or a quote was seen), so an empty line is not the same. */
  private started = false;
  private line = 1;
  private recordLine = 1;

  constructor(
    private readonly onRecord: (cells: string[], line: number) => void,
    private readonly onTooLong: (line: number) => never,
    private readonly maxRecordChars = MAX_RECORD_CHARS,
  ) {}

  push(chunk: Buffer): void {
    this.text(this.decoder.write(chunk));
  }

  finish(): void {
    this.text(this.decoder.end());
    this.quotePending = false;
    if (this.started || this.cell !== '') this.endRecord();
  }

  private text(s: string): void {
    let i = 0;
    let from = 0;
    const n = s.length;
    if (this.quotePending && n > 0) {
      this.quotePending = false;
      if (s.charCodeAt(0) === QUOTE) {
        this.cell += '"';
        i = from = 1;
      } else this.quoted = false;
    }
    while (i < n) {
      if (this.quoted) {
        const q = s.indexOf('"', i);
        if (q < 0) {
          for (let k = i; k < n; k++) if (s.charCodeAt(k) === LF) this.line++;
          i = n;
          break;
        }
        for (let k = i; k < q; k++) if (s.charCodeAt(k) === LF) this.line++;
        this.cell += s.slice(from, q);
        if (q + 1 >= n) {
          this.quotePending = true;
          i = from = n;
          break;
        }
        if (s.charCodeAt(q + 1) === QUOTE) {
          this.cell += '"';
          i = from = q + 2;
          continue;
        }
        this.quoted = false;
        i = from = q + 1;
        continue;
      }
      const c = s.charCodeAt(i);
      if (c === COMMA) {
        this.cell += s.slice(from, i);
        this.cells.push(this.cell);
        this.cellsChars += this.cell.length;
        this.cell = '';
        this.started = true;
        from = i + 1;
      } else if (c === LF) {
        this.cell += s.slice(from, i);
        if (this.cell.charCodeAt(this.cell.length - 1) === CR) this.cell = this.cell.slice(0, -1);
        from = i + 1;
        this.endRecord();
        this.line++;
        this.recordLine = this.line;
      } else if (c === QUOTE && this.cell === '' && from === i) {
        this.quoted = true;
        this.started = true;
        from = i + 1;
      }
      i++;
    }
    this.cell += s.slice(from, n);
    if (this.cellsChars + this.cell.length > this.maxRecordChars) this.onTooLong(this.recordLine);
  }

  private endRecord(): void {
    this.cells.push(this.cell);
    const cells = this.cells;
    this.cells = [];
    this.cellsChars = 0;
    this.cell = '';
    this.started = false;
    this.quoted = false;
    this.onRecord(cells, this.recordLine);
  }
}
