// CSV records (RFC 4180: quoted cells, doubled quotes, CRLF or LF) from byte chunks, for the Nsight Systems
// exports: `nsys stats --format csv` quotes a cell when it holds a comma or a quote (kernel names do). Chunks
// may cut anywhere, a multi-byte character included. The records are the CSV scanner's (input/csv/scan.ts, the
// one CSV parser of kprof), handed on as arrays of cells: these files are small beside a kernel table. A record
// longer than `maxRecordBytes` is refused: memory stays bounded whatever the file holds.

import { CsvScanner } from '../../../csv/scan.js';

export const MAX_RECORD_BYTES = 16 << 20;

export class CsvRecords {
  private readonly scanner: CsvScanner;

  constructor(onRecord: (cells: string[], line: number) => void, onTooLong: (line: number) => never, maxRecordBytes = MAX_RECORD_BYTES) {
    // The scanner passes over empty lines; the nsys readers count them (the lines before a header), so each is
    // handed on as a record of one empty cell, as a line of no cells is.
    let next = 1;
    this.scanner = new CsvScanner(
      (row) => {
        if (row.problem === 'too-long') onTooLong(row.line);
        for (; next < row.line; next++) onRecord([''], next);
        const cells = row.cells();
        next = row.line + 1;
        for (const c of cells) for (let i = c.indexOf('\n'); i >= 0; i = c.indexOf('\n', i + 1)) next++;
        onRecord(cells, row.line);
      },
      { maxRecordBytes },
    );
  }

  push(chunk: Buffer): void {
    this.scanner.write(chunk);
  }

  finish(): void {
    this.scanner.finish();
    this.scanner.close();
  }
}
