import { Elysia } from "elysia";
import { ForgotPassword } from "../../../views/auth/ForgotPassword";
import { ResetPassword, type ResetState } from "../../../views/auth/ResetPassword";
import { VerifyEmailResult } from "../../../views/auth/VerifyEmail";
import { context, type FormScreen, type Render } from "../../context";
import { type Deps, type RequestState } from "../../deps";
import { DomainError } from "../../../lib/domain-error";
import { json, redirectTo, safeNext, wantsJson } from "../../../lib/http";
import { flashCookie, renderPage } from "../../shell/render";
import { encodeFlash, type FlashData, type View } from "../../shell/view";
import { confirmEmail, requestPasswordReset, resendVerification, resetPassword, resetTokenEmail } from "../../auth/account";
import { sessionAnswers } from "./answers";
import { forgotBody, resendBody, resetBody, tokenFrom, tokenInput } from "../../auth/input";
import { signInLimits } from "../../auth/service";
import { findToken, pendingEmailChange } from "../../auth/tokens";

/**
 * A "forgot password" request is answered no sooner than this after it arrived, whether or not
 * the address has an account, so the time taken says nothing either (the email is sent after).
 */
const RESET_ANSWER_MS = 150;

/**
 * An account screen's headers. Never stored (it shows an address); pages reached with a token in
 * their address never send it to another site as a referrer (`same-origin`, not `no-referrer`,
 * which would make the browser send `Origin: null` with the page's own forms, refused as
 * cross-site).
 */
const PAGE_HEADERS = { "Cache-Control": "no-store", "Referrer-Policy": "same-origin" };

/**
 * Verified addresses and password reset (docs/decisions/0034): following a verification link,
 * asking for it again, "Forgot password?" and choosing a new password from the emailed link.
 */
export function accountEmailRoutes(deps: Deps) {
  const { success } = sessionAnswers(deps);

  const page = (state: RequestState, request: Request, screen: (view: View) => JSX.Element, status = 200) =>
    renderPage(deps, state, request, screen, { status, headers: PAGE_HEADERS });

  const resetPage = (render: Render, screen: ResetState, status = 200) => render((view) => <ResetPassword view={view} state={screen} />, { status, headers: PAGE_HEADERS });

  /** A verification link that no longer works, or whose new address was taken meanwhile: the page says which. */
  const verifyRefused: FormScreen = ({ error }, { render }) =>
    render(
      (view) => <VerifyEmailResult view={view} outcome={error.key === "verify.taken" ? { kind: "taken", email: String(error.params?.email ?? "") } : { kind: "invalid" }} />,
      { status: error.status, headers: PAGE_HEADERS },
    );

  /** A refused "Resend link" from Settings goes back there with a toast saying why. */
  const resendRefused: FormScreen = ({ sent, error }) => {
    const key = error.key;
    const toast: FlashData =
      key === "verify.tooMany" || key === "verify.addressTooMany"
        ? { title: "toast.verifyTooMany", variant: "error" }
        : { title: key, variant: key === "verify.alreadyVerified" ? "success" : "error" };
    return new Response(null, { status: 303, headers: { Location: safeNext(sent.next, "/settings/account"), "Set-Cookie": flashCookie(deps, encodeFlash(toast)) } });
  };

  /** A refused "Forgot password?": the form again, with the address typed and the message. */
  const forgotRefused: FormScreen = ({ sent, error, message, fields }, { render }) => {
    const email = typeof sent.email === "string" ? sent.email.slice(0, 254) : "";
    const errors = fields.email ? { email: fields.email } : { form: message };
    return render((view) => <ForgotPassword view={view} form={{ email, errors }} />, { status: error.status, headers: PAGE_HEADERS });
  };

  /**
   * A refused new password: the form again with the message, or the page saying the link no
   * longer works. A suspended account's link is used up, so its address comes with the refusal.
   */
  const resetRefused: FormScreen = async ({ sent, error, message, fields }, { render }) => {
    const token = tokenFrom(sent.token);
    if (!token || error.key === "reset.invalid") return resetPage(render, { kind: "invalid" }, 400);
    const email = error.key === "login.suspended" ? String(error.params?.email ?? "") : await resetTokenEmail(deps, token);
    if (!email) return resetPage(render, { kind: "invalid" }, 400);
    return resetPage(render, { kind: "form", token, email, errors: fields.password ? { password: fields.password } : { form: message } }, error.status);
  };

  /** Uses a verification link and answers what it did. */
  async function verify(request: Request, state: RequestState, token: string | null) {
    const current = state.user && state.session ? { userId: state.user.id, sid: state.session.sid } : null;
    const result = await confirmEmail(deps, token, current, state.locale);
    const email = result.user.email!;
    if (wantsJson(request)) return json({ message: state.t(result.kind === "verified" ? "verify.done" : result.kind === "alreadyVerified" ? "verify.already" : "verify.changed", { email }), email, emailVerified: true }, 200);
    return page(state, request, (view) => <VerifyEmailResult view={view} outcome={{ kind: result.kind, email }} />);
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
          const { token } = query;
          const row = await findToken(deps.db, token, "verify", deps.now());
          if (token && row && deps.config.adminEmails.includes(row.email.toLowerCase())) {
            if (wantsJson(request)) return json({ message: state.t("verify.confirmBody", { email: row.email }) }, 200);
            return page(state, request, (view) => <VerifyEmailResult view={view} outcome={{ kind: "confirm", token, email: row.email }} />);
          }
          return verify(request, state, token);
        },
        { public: true, query: tokenInput, refused: { screen: verifyRefused } },
      )
      .post("/verify-email", ({ request, body, state }) => verify(request, state, body.token), { public: true, body: tokenInput, refused: { screen: verifyRefused } })
      .post(
        "/api/auth/verify-email/resend",
        async ({ request, body, user, state, sendTo }) => {
          const pending = await pendingEmailChange(deps.db, user.id, deps.now());
          const email = await resendVerification(deps, user, state.locale, pending);
          if (wantsJson(request)) return json({ message: state.t("verify.sent", { email }), email }, 202);
          return sendTo(body.next, { title: "toast.verifySent", body: "toast.verifySentBody" });
        },
        { signedIn: true, body: resendBody, refused: { screen: resendRefused } },
      )
      .get(
        "/forgot-password",
        ({ request, query, state }) => {
          const email = typeof query.email === "string" && query.email.length <= 254 ? query.email : (state.user?.email ?? "");
          return page(state, request, (view) => <ForgotPassword view={view} form={{ email }} />);
        },
        { public: true },
      )
      .post(
        "/forgot-password",
        async ({ request, body, state }) => {
          const started = performance.now();
          const { email } = body;
          await requestPasswordReset(deps, email, state.ip, state.locale);
          const rest = RESET_ANSWER_MS - (performance.now() - started);
          if (rest > 0) await Bun.sleep(rest);
          if (wantsJson(request)) return json({ message: state.t("forgot.sent", { email }) });
          return page(state, request, (view) => <ForgotPassword view={view} form={{ email, sent: true }} />);
        },
        { public: true, body: forgotBody, refused: { screen: forgotRefused } },
      )
      // The link in the reset email shows the form; the token is used only when the form is sent
      // (mail scanners follow links).
      .get(
        "/reset-password",
        async ({ query, render }) => {
          const { token } = query;
          const email = await resetTokenEmail(deps, token);
          if (!token || !email) return resetPage(render, { kind: "invalid" }, 400);
          return await resetPage(render, { kind: "form", token, email });
        },
        { public: true, query: tokenInput },
      )
      .post(
        "/reset-password",
        async ({ request, body, state }) => {
          const { token, password } = body;
          const email = await resetTokenEmail(deps, token);
          if (!email) throw new DomainError("reset.invalid", 400);
          const user = await resetPassword(deps, token, password);
          // Whoever was locked out of this address from here by wrong passwords is let in again.
          await signInLimits.forget(deps, email, state.ip);
          const redirect = wantsJson(request)
            ? null
            : redirectTo(request, "/", { "Set-Cookie": flashCookie(deps, encodeFlash({ title: "toast.passwordReset", body: "toast.passwordResetBody" })) });
          return success(state, user.id, redirect);
        },
        { public: true, body: resetBody, refused: { screen: resetRefused } },
      )
  );
}
