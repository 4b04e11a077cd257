/**
 * How passwords are hashed: argon2id (Bun's default parameters) in the app. The hasher is a
 * dependency (`deps.passwords`) so the test suite can hash cheaply — the same argon2id code
 * path at its lowest cost — while every stored hash names its own algorithm and parameters, so
 * `verify` reads any of them.
 */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, hash: string): Promise<boolean>;
}
