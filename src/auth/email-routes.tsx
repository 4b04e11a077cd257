import { Elysia } from "elysia";
import { ForgotPassword, type ForgotForm } from "../../views/auth/ForgotPassword";
import { ResetPassword, type ResetState } from "../../views/auth/ResetPassword";
import { VerifyEmailResult, type VerifyOutcome } from "../../views/auth/VerifyEmail";
import { context } from "../context";
import { type Deps, type RequestState } from "../deps";
import { asRecord, json, redirectTo, safeNext, waitHeaders, waitParams, wantsJson } from "../lib/http";
import type { MessageKey } from "../texts";
import { flashCookie, renderPage } from "../shell/render";
import { encodeFlash, type FlashData, type View } from "../shell/view";
import { confirmEmail, requestPasswordReset, resendVerification, resetPassword, resetTokenEmail } from "./account";
import { sessionAnswers } from "./answers";
import { emailSchema, signUpSchema } from "./input";
import { takeEach } from "../lib/rate-limit";
import { signInLimits } from "./service";
import { findToken, pendingEmailChange, tokenFrom } from "./tokens";

/**
 * A "forgot password" request is answered no sooner than this after it arrived, whether or not
 * the address has an account, so the time taken says nothing either (the email is sent after).
 */
const RESET_ANSWER_MS = 150;

/**
 * Verified addresses and password reset (docs/decisions/0034): following a verification link,
 * asking for it again, "Forgot password?" and choosing a new password from the emailed link.
 */
export function accountEmailRoutes(deps: Deps) {
  const { success } = sessionAnswers(deps);

  /**
   * An account screen. Never stored (it shows an address); pages reached with a token in their
   * address never send it to another site as a referrer (`same-origin`, not `no-referrer`, which
   * would make the browser send `Origin: null` with the page's own forms, refused as cross-site).
   */
  const page = (state: RequestState, request: Request, screen: (view: View) => JSX.Element, status = 200, headers: Record<string, string> = {}) =>
    renderPage(deps, state, request, screen, { status, headers: { "Cache-Control": "no-store", "Referrer-Policy": "same-origin", ...headers } });

  const forgotPage = (state: RequestState, request: Request, form: ForgotForm, status = 200, headers: Record<string, string> = {}) =>
    page(state, request, (view) => <ForgotPassword view={view} form={form} />, status, headers);

  const resetPage = (state: RequestState, request: Request, screen: ResetState, status = 200) =>
    page(state, request, (view) => <ResetPassword view={view} state={screen} />, status);

  /** Uses a verification link and answers what it did. */
  async function verify(request: Request, state: RequestState, token: string | null) {
    const current = state.user && state.session ? { userId: state.user.id, sid: state.session.sid } : null;
    const result = await confirmEmail(deps, token, current, state.locale);
    const outcome: VerifyOutcome =
      result.kind === "verified" || result.kind === "changed" ? { kind: result.kind, email: result.user.email! } : result;
    const status = outcome.kind === "taken" ? 409 : outcome.kind === "invalid" ? 400 : 200;
    if (wantsJson(request)) {
      const message =
        outcome.kind === "verified"
          ? state.t("verify.done", { email: outcome.email })
          : outcome.kind === "changed"
            ? state.t("verify.changed", { email: outcome.email })
            : outcome.kind === "taken"
              ? state.t("verify.taken", { email: outcome.email })
              : state.t("verify.invalid");
      return json({ message, ...(outcome.kind === "verified" || outcome.kind === "changed" ? { email: outcome.email, emailVerified: true } : {}) }, status);
    }
    return page(state, request, (view) => <VerifyEmailResult view={view} outcome={outcome} />, status);
  }

  return (
    new Elysia({ name: "offline.auth.email", seed: deps.id })
      .use(context(deps))
      // The link in the verification email. Used when followed: verifying is what the link is for.
      // An operator's address (ADMIN_EMAILS) is the exception: its link shows a page whose button
      // verifies, since a company's mail scanner opening links must not hand operator rights to
      // whoever signed up with that address.
      .get(
        "/verify-email",
        async ({ request, query, state }) => {
          const token = tokenFrom(query.token);
          const row = await findToken(deps.db, token, "verify", deps.now());
          if (token && row && deps.config.adminEmails.includes(row.email.toLowerCase())) {
            if (wantsJson(request)) return json({ message: state.t("verify.confirmBody", { email: row.email }) }, 200);
            return page(state, request, (view) => <VerifyEmailResult view={view} outcome={{ kind: "confirm", token, email: row.email }} />);
          }
          return verify(request, state, token);
        },
        { public: true },
      )
      .post(
        "/verify-email",
        ({ request, body, state }) => verify(request, state, tokenFrom(asRecord(body).token)),
        { public: true },
      )
      .post(
        "/api/auth/verify-email/resend",
        async ({ request, body, user, state, sendTo }) => {
          const next = safeNext(asRecord(body).next, "/settings/account");
          const pending = await pendingEmailChange(deps.db, user.id, deps.now());
          const result = await resendVerification(deps, user, state.locale, pending);
          if (wantsJson(request)) {
            if (result.ok) return json({ message: state.t("verify.sent", { email: result.email }), email: result.email }, 202);
            return json({ message: state.t(result.reason, waitParams(result.retryAfterMs)) }, result.status, waitHeaders(result.retryAfterMs));
          }
          if (result.ok) return sendTo(next, { title: "toast.verifySent", body: "toast.verifySentBody" });
          const toast: FlashData =
            result.reason === "verify.tooMany" || result.reason === "verify.addressTooMany"
              ? { title: "toast.verifyTooMany", variant: "error" }
              : { title: result.reason, variant: result.reason === "verify.alreadyVerified" ? "success" : "error" };
          return sendTo(next, toast, waitHeaders(result.retryAfterMs));
        },
        { signedIn: true },
      )
      .get(
        "/forgot-password",
        ({ request, query, state }) => {
          const email = typeof query.email === "string" && query.email.length <= 254 ? query.email : (state.user?.email ?? "");
          return forgotPage(state, request, { email });
        },
        { public: true },
      )
      .post(
        "/forgot-password",
        async ({ request, body, state }) => {
          const started = performance.now();
          const input = asRecord(body);
          const typed = typeof input.email === "string" ? input.email.slice(0, 254) : "";
          const parsed = emailSchema.safeParse(input.email);
          if (!parsed.success) {
            const message = state.t(parsed.error.issues[0]!.message as MessageKey);
            if (wantsJson(request)) return json({ message, errors: { email: message } }, 400);
            return forgotPage(state, request, { email: typed, errors: { email: message } }, 400);
          }
          const email = parsed.data;
          const now = deps.now();
          const wait = await deps.limits.resetByIp.take(state.ip, now);
          if (wait > 0) {
            const message = state.t("forgot.tooMany", waitParams(wait));
            if (wantsJson(request)) return json({ message }, 429, waitHeaders(wait));
            return forgotPage(state, request, { email, errors: { form: message } }, 429, waitHeaders(wait));
          }
          // Over the address's limits nothing more is sent, and the answer does not change. They
          // are counted whether or not the address has an account, so they say nothing of it.
          const { retryAfterMs } = await takeEach(now, [deps.limits.resetByEmail, email], [deps.limits.emailsToAddress, email]);
          if (retryAfterMs === 0) await requestPasswordReset(deps, email, state.locale);
          const rest = RESET_ANSWER_MS - (performance.now() - started);
          if (rest > 0) await Bun.sleep(rest);
          if (wantsJson(request)) return json({ message: state.t("forgot.sent", { email }) });
          return forgotPage(state, request, { email, sent: true });
        },
        { public: true },
      )
      // The link in the reset email shows the form; the token is used only when the form is sent
      // (mail scanners follow links).
      .get(
        "/reset-password",
        async ({ request, query, state }) => {
          const token = tokenFrom(query.token);
          const email = await resetTokenEmail(deps, token);
          if (!token || !email) return resetPage(state, request, { kind: "invalid" }, 400);
          return await resetPage(state, request, { kind: "form", token, email });
        },
        { public: true },
      )
      .post(
        "/reset-password",
        async ({ request, body, state }) => {
          const input = asRecord(body);
          const token = tokenFrom(input.token);
          const email = await resetTokenEmail(deps, token);
          const invalid = () =>
            wantsJson(request) ? json({ message: state.t("reset.invalid") }, 400) : resetPage(state, request, { kind: "invalid" }, 400);
          if (!token || !email) return invalid();
          const parsed = signUpSchema.shape.password.safeParse(input.password);
          if (!parsed.success) {
            const message = state.t(parsed.error.issues[0]!.message as MessageKey);
            if (wantsJson(request)) return json({ message, errors: { password: message } }, 400);
            return await resetPage(state, request, { kind: "form", token, email, errors: { password: message } }, 400);
          }
          const result = await resetPassword(deps, token, parsed.data);
          if (!result.ok) {
            if (result.reason === "invalid") return invalid();
            const message = state.t("login.suspended");
            if (wantsJson(request)) return json({ message }, 403);
            return await resetPage(state, request, { kind: "form", token, email, errors: { form: message } }, 403);
          }
          // Whoever was locked out of this address from here by wrong passwords is let in again.
          await signInLimits.forget(deps, email, state.ip);
          const redirect = wantsJson(request)
            ? null
            : redirectTo(request, "/", { "Set-Cookie": flashCookie(deps, encodeFlash({ title: "toast.passwordReset", body: "toast.passwordResetBody" })) });
          return success(state, result.user.id, redirect);
        },
        { public: true },
      )
  );
}
