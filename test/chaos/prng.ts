/**
 * The chaos run's one source of chance. mulberry32 (Tommy Ettinger's 32-bit generator, public domain):
 * a dozen lines with no dependency, whose sequence for a seed cannot change under us with a library's
 * upgrade (fast-check's generators are an implementation detail of its own), and plenty for drawing a
 * schedule and a load. Each part of the run draws from a stream of its own (`fork`), so that what the
 * load draws (which depends on answers and timing) never shifts the fault schedule of the same seed.
 */
export interface Rng {
  /** A float in [0, 1). */
  next(): number;
  /** A whole number from `lo` to `hi`, both included. */
  int(lo: number, hi: number): number;
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** Picks by weight: `[[value, weight], …]`. */
  weighted<T>(choices: readonly (readonly [T, number])[]): T;
  /** An independent stream for `label`, the same for the same seed and label whatever this one drew. */
  fork(label: string): Rng;
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a of the label, mixed into the seed: the fork's own seed. */
function forkSeed(seed: number, label: string): number {
  let h = 0x811c9dc5 ^ seed;
  for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export function createRng(seed: number): Rng {
  const next = mulberry32(seed);
  const rng: Rng = {
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    chance: (p) => next() < p,
    pick: (items) => items[Math.floor(next() * items.length)],
    weighted(choices) {
      const total = choices.reduce((sum, [, w]) => sum + w, 0);
      let x = next() * total;
      for (const [value, w] of choices) if ((x -= w) < 0) return value;
      return choices[choices.length - 1][0];
    },
    fork: (label) => createRng(forkSeed(seed, label)),
  };
  return rng;
}
