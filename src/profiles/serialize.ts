import { users, type User } from "../../db/schema";
import { ageOn } from "../../shared/dates";
import { parseAbout, parseVisibility, visibleAbout, type About } from "./about";

/**
 * What the app shows of a person, one serializer per audience (docs/decisions/0007):
 *
 * - `publicUser`: anyone signed in (profiles, activity hosts, reviewers).
 * - `participantUser`: the other side of a booking.
 * - `selfUser`: the person themself.
 *
 * Each one is an explicit allow-list: a column added to `users` shows nowhere until it is
 * written here on purpose. Never the password hash, the provider or Stripe ids; other people
 * never see the email, last name, birth date, phone or about fields the owner hid.
 */

/**
 * The only columns the public and participant serializers read. Queries that show other people
 * select these, so private columns are not even loaded.
 */
export const publicUserColumns = {
  id: users.id,
  username: users.username,
  firstName: users.firstName,
  photo: users.photo,
  photos: users.photos,
  /** Read for the age only; the date itself is never shown to others. */
  dateOfBirth: users.dateOfBirth,
  city: users.city,
  country: users.country,
  bio: users.bio,
  interests: users.interests,
  languages: users.languages,
  /** Read to pick the visible fields only. */
  about: users.about,
  aboutVisibility: users.aboutVisibility,
  createdAt: users.createdAt,
};
export type PublicUserSource = Pick<User, keyof typeof publicUserColumns>;

export interface PublicUser {
  id: string;
  username: string | null;
  firstName: string | null;
  /** The spec's `name` as others see it: the first name only. */
  name: string | null;
  photo: string | null;
  photos: string[];
  age: number | null;
  city: string | null;
  country: string | null;
  bio: string | null;
  interests: string[];
  languages: string[];
  /** Only the about fields the owner left visible. */
  about: About;
  memberSince: number;
}

export const PUBLIC_USER_KEYS = [
  "id",
  "username",
  "firstName",
  "name",
  "photo",
  "photos",
  "age",
  "city",
  "country",
  "bio",
  "interests",
  "languages",
  "about",
  "memberSince",
] as const satisfies readonly (keyof PublicUser)[];

/** What anyone signed in may see of a person. */
export function publicUser(user: PublicUserSource, today = new Date()): PublicUser {
  return {
    id: user.id,
    username: user.username,
    firstName: user.firstName,
    name: user.firstName,
    photo: user.photo,
    photos: user.photos,
    age: ageOn(user.dateOfBirth, today),
    city: user.city,
    country: user.country,
    bio: user.bio,
    interests: user.interests,
    languages: user.languages,
    about: visibleAbout(parseAbout(user.about), parseVisibility(user.aboutVisibility)),
    memberSince: new Date(user.createdAt).getUTCFullYear(),
  };
}

/**
 * What the other side of a booking sees of a person. A booking reveals nothing more than the
 * public profile for now: guest and host talk through the app's messages, and the meeting point
 * is the activity's. A field added here (say a phone number for the day) is a product decision.
 */
export type ParticipantUser = PublicUser;
export const PARTICIPANT_USER_KEYS = [...PUBLIC_USER_KEYS] as const;

export function participantUser(user: PublicUserSource, today = new Date()): ParticipantUser {
  const p = publicUser(user, today);
  return {
    id: p.id,
    username: p.username,
    firstName: p.firstName,
    name: p.name,
    photo: p.photo,
    photos: p.photos,
    age: p.age,
    city: p.city,
    country: p.country,
    bio: p.bio,
    interests: p.interests,
    languages: p.languages,
    about: p.about,
    memberSince: p.memberSince,
  };
}

export interface SelfUser {
  id: string;
  username: string | null;
  email: string | null;
  emailVerified: boolean;
  firstName: string | null;
  lastName: string | null;
  name: string | null;
  profileImageUrl: string | null;
  photo: string | null;
  photos: string[];
  bio: string | null;
  /** The stored JSON text of every about field, hidden ones included. */
  about: string | null;
  aboutVisibility: string | null;
  country: string | null;
  city: string | null;
  dateOfBirth: string | null;
  age: number | null;
  phone: string | null;
  interests: string[];
  languages: string[];
  /** Whether the account has a password (the password screens ask for the current one). */
  hasPassword: boolean;
  createdAt: number;
  updatedAt: number;
}

export const SELF_USER_KEYS = [
  "id",
  "username",
  "email",
  "emailVerified",
  "firstName",
  "lastName",
  "name",
  "profileImageUrl",
  "photo",
  "photos",
  "bio",
  "about",
  "aboutVisibility",
  "country",
  "city",
  "dateOfBirth",
  "age",
  "phone",
  "interests",
  "languages",
  "hasPassword",
  "createdAt",
  "updatedAt",
] as const satisfies readonly (keyof SelfUser)[];

/** The signed-in person as the API shows them to themself: never the password hash or payment ids. */
export function selfUser(user: User, today = new Date()): SelfUser {
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    emailVerified: user.emailVerified,
    firstName: user.firstName,
    lastName: user.lastName,
    name: user.name,
    profileImageUrl: user.profileImageUrl,
    photo: user.photo,
    photos: user.photos,
    bio: user.bio,
    about: user.about,
    aboutVisibility: user.aboutVisibility,
    country: user.country,
    city: user.city,
    dateOfBirth: user.dateOfBirth,
    age: ageOn(user.dateOfBirth, today),
    phone: user.phone,
    interests: user.interests,
    languages: user.languages,
    hasPassword: Boolean(user.passwordHash),
    createdAt: user.createdAt,
    updatedAt: user.updatedAt,
  };
}
