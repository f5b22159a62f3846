/**
 * Password hashing (argon2id) with a cap on concurrent hashes: a login flood waits in a short
 * queue and then gets 429s instead of growing memory (each hash holds ~19 MiB).
 */
import { randomInt } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import { GENERATED_PASSWORD_LENGTH, messages } from '@sitehall/contracts';
import { TooManyRequests } from './errors.js';

// Algorithm.Argon2id; @node-rs/argon2 exports it as a const enum, which isolatedModules can't inline.
const ARGON2ID = 2;
export const HASH_OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/**
 * A hash made with HASH_OPTIONS of a password nobody uses. Sign-ins of unknown accounts verify
 * against it so that they cost what a wrong password costs (no user enumeration by timing); it is
 * a constant so that even the first such sign-in pays no extra hashing.
 */
export const DUMMY_HASH =
  '$argon2id$v=19$m=19456,t=2,p=1$MHIy6s7nf9WLirisNCjVxg$2udQGLCLVWJP+DPGnweH3pjepsJI2XsA8tepgtsFFp4';

export class PasswordHasher {
  #running = 0;
  readonly #queue: Array<() => void> = [];

  constructor(
    private readonly maxConcurrent: number,
    private readonly maxQueued = maxConcurrent * 4,
  ) {}

  /** Hashes running and waiting now. */
  get load(): { running: number; queued: number } {
    return { running: this.#running, queued: this.#queue.length };
  }

  async #slot<T>(work: () => Promise<T>): Promise<T> {
    if (this.#running >= this.maxConcurrent) {
      if (this.#queue.length >= this.maxQueued) throw new TooManyRequests(messages.auth.loginBusy, 5);
      // The slot is handed over by the finishing hash, so #running stays as it is.
      await new Promise<void>((resolve) => this.#queue.push(resolve));
    } else {
      this.#running++;
    }
    try {
      return await work();
    } finally {
      const next = this.#queue.shift();
      if (next) next();
      else this.#running--;
    }
  }

  hash(password: string): Promise<string> {
    return this.#slot(() => hash(password, HASH_OPTIONS));
  }

  verify(passwordHash: string, password: string): Promise<boolean> {
    return this.#slot(() => verify(passwordHash, password).catch(() => false));
  }

  /** Spends the same time as a real verification, for sign-ins of unknown accounts. */
  async verifyNothing(password: string): Promise<false> {
    await this.verify(DUMMY_HASH, password);
    return false;
  }
}

const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';

/** A CSPRNG password: 20 characters from 57 (≈117 bits), no look-alike characters. */
export function generatePassword(length = GENERATED_PASSWORD_LENGTH): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}
