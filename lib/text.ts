/**
 * The one place user text is cleaned and checked before it is stored, for every zod schema of
 * free text (names, titles, bios, meeting points, interests, about fields...).
 *
 * - NFC-normalised, so the same visible text is the same stored text.
 * - Trimmed at both ends of whitespace AND of invisible characters (zero-width spaces and
 *   joiners, word joiner, BOM, soft hyphen, bidi marks, Hangul fillers, blank Braille...), so a
 *   value made only of them is empty and "required" fires with the field's own message.
 * - Single-line fields refuse every control character (C0, DEL, C1), line and paragraph
 *   separators and the bidi embedding, override and isolate characters (U+202A–U+202E,
 *   U+2066–U+2069), which can make a name or a title read backwards next to other text.
 * - Multi-line fields (description, bio) keep line breaks (`\r\n` and `\r` become `\n`) and
 *   tabs, and refuse every other control character.
 * Wrong types are never coerced: the schemas built here accept strings only.
 */
import { z } from "zod";
import type { MessageKey } from "./i18n";

/** Characters with no visible glyph of their own, beyond what `\s` covers. */
const INVISIBLE_CLASS =
  "\\p{Cf}" + // format characters: U+00AD, U+200B–U+200F, U+202A–U+202E, U+2060–U+2064, U+2066–U+206F, U+FEFF, tags...
  "\\u034F" + // combining grapheme joiner
  "\\u115F\\u1160\\u3164\\uFFA0" + // Hangul fillers
  "\\u17B4\\u17B5" + // Khmer inherent vowels
  "\\u180B-\\u180F" + // Mongolian variation selectors and vowel separator
  "\\u2800" + // Braille pattern blank
  "\\uFE00-\\uFE0F" + // variation selectors
  "\\u{E0100}-\\u{E01EF}"; // variation selectors supplement

const EDGES = new RegExp(`^[\\s${INVISIBLE_CLASS}]+|[\\s${INVISIBLE_CLASS}]+$`, "gu");
const NOT_ALLOWED_LINE = /[\p{Cc}\u2028\u2029\u202A-\u202E\u2066-\u2069]/u;
const NOT_ALLOWED_MULTILINE = /[\0-\x08\x0B-\x1F\x7F-\x9F]/;

export type TextKind = "line" | "multiline";

/** NFC, line breaks made `\n` (multi-line), trimmed of whitespace and invisible characters. */
export function cleanText(value: string, kind: TextKind = "line"): string {
  let text = value.normalize("NFC");
  if (kind === "multiline") text = text.replace(/\r\n?|[\u2028\u2029]/g, "\n");
  return text.replace(EDGES, "");
}

/** Whether cleaned text holds a character the field does not take. */
export function hasDisallowedCharacters(value: string, kind: TextKind = "line"): boolean {
  return (kind === "line" ? NOT_ALLOWED_LINE : NOT_ALLOWED_MULTILINE).test(value);
}

/** Cleaned text, or null when it holds characters a field of that kind refuses. */
export function acceptText(value: string, kind: TextKind = "line"): string | null {
  const text = cleanText(value, kind);
  return hasDisallowedCharacters(text, kind) ? null : text;
}

export interface TextRules {
  /** The field's message for a value that is not text (and for an empty one, when required). */
  invalid: MessageKey;
  /** Its message for characters it does not take. */
  characters: MessageKey;
  /** Given: the value may not be empty once cleaned. */
  required?: MessageKey;
  max?: { length: number; message: MessageKey };
  kind?: TextKind;
}

/**
 * A zod string schema for user text: only strings, cleaned as above, then required, length and
 * character checks in that order, each with the field's message. More checks may be chained.
 */
export function userText(rules: TextRules) {
  const kind = rules.kind ?? "line";
  let schema = z.string({ message: rules.invalid }).overwrite((v) => cleanText(v, kind));
  if (rules.required) schema = schema.min(1, { message: rules.required });
  if (rules.max) schema = schema.max(rules.max.length, { message: rules.max.message });
  return schema.refine((v) => !hasDisallowedCharacters(v, kind), { message: rules.characters });
}
