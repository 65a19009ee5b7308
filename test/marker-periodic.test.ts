// layers.ts chooseMarker on a step of one long block of distinct kernels repeated (each kernel a marker candidate
// whose stretches repeat the one before for the whole block): the equal stretches are told by period, not compared
// kernel for kernel for every candidate (a block of 100,000 kernels four times was 2 × 10^10 comparisons, half a minute).

import { describe, expect, it } from 'vitest';
import { chooseMarker, type MarkerSite } from '../src/analysis/rewrites/layers.js';

describe('the layer marker of a step of a long repeated block', () => {
  it('is found without comparing the block once per kernel', () => {
    const block = 200_000;
    const layers = 4;
    const rep = new Int32Array(block * layers);
    for (let i = 0; i < rep.length; i++) rep[i] = i % block;
    const texts = Array.from({ length: block }, (_, i) => `K${String(i).padStart(6, '0')}`);
    // One site of the rewrite in each repetition, near its start: every kernel puts them one to a layer.
    const sites: MarkerSite[] = Array.from({ length: layers }, (_, k) => ({ side: 0, start: k * block + 5, end: k * block + 6 }));
    const why = { equal: false };
    const marker = chooseMarker([rep, rep], new Set(), sites, layers, texts, sites, why);
    // Every kernel splits the step into equally long, equal layers; the nearest to the sites is the one right before them.
    expect(why.equal).toBe(true);
    expect(marker).not.toBeNull();
    expect(texts[marker!]).toBe('K000005');
  });
});

describe('the layer marker of a step of many candidates and a rewrite of many sites', () => {
  it('looks at candidates up to a bound, in order of first occurrence', () => {
    // 100,000 kernels, four times each (none repeats a stretch), and 50,000 sites: every kernel is a candidate, and
    // each costs a pass over the sites (three minutes in all before the bound).
    const n = 400_000;
    const rep = new Int32Array(n);
    for (let i = 0; i < n; i++) rep[i] = (i * 7919) % 100_000;
    const texts = Array.from({ length: 100_000 }, (_, i) => `K${i}`);
    const sites: MarkerSite[] = Array.from({ length: 50_000 }, (_, k) => ({ side: 0, start: k * 8 + 1, end: k * 8 + 2 }));
    const marker = chooseMarker([rep, rep], new Set(), sites, 50_000, texts, sites);
    expect(marker).not.toBeNull();
    // Of the first 512 candidates looked at (64 steps' worth at 100,000 sites a candidate).
    expect(rep.indexOf(marker!)).toBeLessThan(512 * 4);
  });
});
