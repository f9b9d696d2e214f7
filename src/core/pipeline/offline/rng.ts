/**
 * Seeded randomness for the offline generator. Every random choice is drawn from a generator
 * seeded by a *key* (run seed, tool, scenario, attempt), not from one stream for the whole run,
 * so adding a scenario or a tool does not reshuffle the values of all the others.
 */
import type { Faker, Randomizer } from '@faker-js/faker';
import { faker as sharedFaker } from '@faker-js/faker/locale/en';

export { hash32 } from '../../fnv';
import { hash32 } from '../../fnv';

/** Joins key parts into one seed. */
export function seedOf(...parts: readonly (string | number)[]): number {
  return hash32(parts.map(String).join('\u241f'));
}

/** A small deterministic PRNG (mulberry32) with the helpers the generator needs. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [min, max] (inclusive). */
  int(min: number, max: number): number {
    if (max <= min) return min;
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** One element (undefined for an empty list). */
  pick<T>(items: readonly T[]): T | undefined {
    return items.length ? items[Math.floor(this.next() * items.length)] : undefined;
  }

  /** A shuffled copy (Fisher–Yates). */
  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [out[i], out[j]] = [out[j] as T, out[i] as T];
    }
    return out;
  }

  /** A child generator for a sub-key (independent of how much this one was used). */
  fork(...parts: readonly (string | number)[]): Rng {
    return new Rng(seedOf(this.state, ...parts));
  }
}

/** A generator for a key. */
export function rngFor(...parts: readonly (string | number)[]): Rng {
  return new Rng(seedOf(...parts));
}

/** The fixed "now" of offline data, so relative dates never depend on the clock. */
export const OFFLINE_REF_DATE = '2026-06-01T09:00:00.000Z';

/** The stream faker draws from; swapped per key by `fakerFor`. */
let current = new Rng(0);

/**
 * One English faker whose randomness comes from our seeded `Rng` rather than its own Mersenne
 * Twister: reseeding that costs ~40 µs, and the generator reseeds per call and attempt. Built
 * from the `locale/en` instance's class and definitions, so no other locale is loaded.
 */
const keyedFaker: Faker = (() => {
  const FakerClass = sharedFaker.constructor as new (options: { locale: unknown; randomizer: Randomizer }) => Faker;
  const randomizer: Randomizer = {
    next: () => current.next(),
    seed: (seed) => {
      current = new Rng(typeof seed === 'number' ? seed : seedOf(...seed));
    },
  };
  const f = new FakerClass({ locale: sharedFaker.rawDefinitions, randomizer });
  f.setDefaultRefDate(OFFLINE_REF_DATE);
  return f;
})();

/**
 * The English faker, seeded for a key. One shared instance: callers use it synchronously
 * right after asking for it, so keys do not interleave within a run, and runs are
 * deterministic either way.
 */
export function fakerFor(...parts: readonly (string | number)[]): Faker {
  current = new Rng(seedOf('faker', ...parts));
  return keyedFaker;
}
