import { one } from "../../../db/client";
import { eq } from "drizzle-orm";
import { users } from "../../../db/schema";
import type { Deps, RequestState } from "../../deps";
import { json, serializeCookie } from "../../../lib/http";
import { selfUser } from "../../profiles/serialize";
import { createSession, destroySession, SESSION_TTL_MS } from "../../auth/service";

/** Starting and ending a browser's session, shared by every way of signing in. */
export function sessionAnswers(deps: Deps) {
  const secure = deps.config.secureCookies;

  const sessionCookie = (token: string) => serializeCookie(deps.cookies.session, token, { maxAge: SESSION_TTL_MS / 1000, secure });
  const clearSession = () => serializeCookie(deps.cookies.session, "", { maxAge: 0, secure });

  /** Ends the browser's session, and tells the live channel, which closes the sockets it opened. */
  async function endSession(state: RequestState) {
    if (!state.sessionToken) return;
    await destroySession(deps.db, state.sessionToken);
    if (state.user && state.session) deps.events.emit({ type: "sessions.ended", userId: state.user.id, sessionIds: [state.session.sid] });
  }

  /** Ends any session the browser had (rotation) and starts a new one for the user. */
  async function signIn(state: RequestState, userId: string) {
    await endSession(state);
    return createSession(deps.db, userId, deps.now());
  }

  /** Starts the session and completes the answer: `redirect` for forms, the user as JSON otherwise. */
  async function success(state: RequestState, userId: string, redirect: Response | null, status = 200) {
    if (redirect) {
      const session = await signIn(state, userId);
      redirect.headers.append("Set-Cookie", sessionCookie(session.token));
      return redirect;
    }
    const user = await one(deps.db.select().from(users).where(eq(users.id, userId)));
    const answer = json(selfUser(user!), status);
    const session = await signIn(state, userId);
    answer.headers.append("Set-Cookie", sessionCookie(session.token));
    answer.headers.set("X-CSRF-Token", session.csrf);
    return answer;
  }

  return { sessionCookie, clearSession, endSession, signIn, success };
}
