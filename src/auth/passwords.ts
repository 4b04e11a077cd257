import type { PasswordHasher } from "../ports/passwords";

/** argon2id with Bun's default parameters: the app's hasher (src/ports/passwords.ts). */
export const argon2Passwords: PasswordHasher = {
  hash: (password) => Bun.password.hash(password, "argon2id"),
  verify: (password, hash) => Bun.password.verify(password, hash),
};
