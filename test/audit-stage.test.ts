// The audit's phases from the Stage column of the step-time file beside a kernel table (src/analysis/audit/
// structure.ts stagePhases): the file is read by its format's reader with the CSV scanner, so quoted cells (a
// comma inside one), CRLF line ends and a BOM read as in every CSV. A split on commas got these wrong: a quoted
// header found no Step or Stage column, and a row with a comma in a quoted cell had too many cells and was lost.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { stagePhases } from '../src/analysis/audit/structure.js';

const tmp = mkdtempSync(join(tmpdir(), 'kprof-stage-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A folder with a kernel table and the step-time file beside it (the kernel table is not read here). */
function folder(name: string, stepTime: string | Buffer): { path: string; format: string }[] {
  const dir = join(tmp, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'kernel_details.csv'), 'Step Id,Name,Type,Duration(us)\n');
  writeFileSync(join(dir, 'step_trace_time.csv'), stepTime);
  return [{ path: join(dir, 'kernel_details.csv'), format: 'kernel_details' }];
}

const BOM = '\uFEFF';

describe('stagePhases: the Stage column read with the CSV scanner', () => {
  test('a quoted header and quoted cells, CRLF line ends and a BOM', () => {
    const lines = [
      '"Device_id","Step","Computing","Communication(Not Overlapped)","Free","Stage","Bubble"',
      '"0","1","10.5","1","0","prefill","0"',
      '"0","2","8.5","1","0","decode","0"',
      '"0","3","8.5","1","0","Decode","0"',
    ];
    expect([...stagePhases(folder('quoted', `${BOM}${lines.join('\r\n')}\r\n`))]).toEqual([
      [1, 'prefill'],
      [2, 'decode'],
      [3, 'decode'],
    ]);
  });

  test('a quoted cell that holds a comma: the row keeps its width and its phase', () => {
    const lines = ['Device_id,Step,Computing,Communication(Not Overlapped),Free,Stage,Bubble', '0,1,"1,024.5",1,0,prefill,0', '0,2,8.5,1,0,decode,0'];
    expect([...stagePhases(folder('comma', `${lines.join('\n')}\n`))]).toEqual([
      [1, 'prefill'],
      [2, 'decode'],
    ]);
  });

  test('times in Stage (as real exports write it), a row of the wrong width and a step twice: no phase from them', () => {
    const lines = ['Step,Computing,Stage', '1,10,8827.47', '2,10', '3,10,decode', '3,10,prefill'];
    // Step 3 is read once, its first row (as the step-time reader keeps it).
    expect([...stagePhases(folder('times', `${lines.join('\n')}\n`))]).toEqual([[3, 'decode']]);
  });

  test('no step-time file, or one without a Stage column: no phases', () => {
    const dir = join(tmp, 'none');
    mkdirSync(dir);
    writeFileSync(join(dir, 'kernel_details.csv'), 'Step Id,Name,Type,Duration(us)\n');
    expect(stagePhases([{ path: join(dir, 'kernel_details.csv'), format: 'kernel_details' }]).size).toBe(0);
    expect(stagePhases(folder('no-stage', 'Step,Computing\n1,10\n')).size).toBe(0);
  });
});
