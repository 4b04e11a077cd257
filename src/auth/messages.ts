/**
 * Sign-in and sign-up texts, with the toasts that follow them.
 * English is the default; `fr` is typed against `en`, so a French key missing or extra fails
 * type-checking. Assembled into the catalogue by `src/lib/i18n.ts`.
 */
export const en = {
  "login.title": "Sign in to Offline",
  "login.signInTab": "Sign in",
  "login.signUpTab": "Create account",
  "login.email": "Email",
  "login.password": "Password",
  "login.passwordHint": "At least 6 characters.",
  "login.submitSignIn": "Sign In",
  "login.submitSignUp": "Create account",
  "login.noAccount": "New to Offline?",
  "login.haveAccount": "Already have an account?",
  "login.or": "or",
  "login.continueWith": "Continue with {provider}",
  "login.adult": "You must be 18 or older to use Offline.",
  "login.invalidCredentials": "Incorrect email or password.",
  "login.emailTaken": "An account with this email already exists. Sign in instead.",
  "login.invalidEmail": "Please enter a valid email address",
  "login.passwordRequired": "Password is required",
  "login.passwordTooShort": "Password must be at least 6 characters",
  "login.passwordTooLong": "Password must be at most 200 characters",
  "login.oauthFailed": "Sign-in with {provider} did not complete. Please try again.",
  "login.oauthNoEmail": "{provider} did not share a verified email address.",
  "login.backHome": "Back",

  "toast.signedIn": "Signed in",
  "toast.signedUp": "Account created",
  "toast.signedUpBody": "Welcome to Offline!",
  "toast.signedOut": "Signed out",
} as const;

export const fr: Record<keyof typeof en, string> = {
  "login.title": "Connexion à Offline",
  "login.signInTab": "Connexion",
  "login.signUpTab": "Créer un compte",
  "login.email": "E-mail",
  "login.password": "Mot de passe",
  "login.passwordHint": "Au moins 6 caractères.",
  "login.submitSignIn": "Se connecter",
  "login.submitSignUp": "Créer un compte",
  "login.noAccount": "Nouveau sur Offline ?",
  "login.haveAccount": "Vous avez déjà un compte ?",
  "login.or": "ou",
  "login.continueWith": "Continuer avec {provider}",
  "login.adult": "Vous devez avoir 18 ans ou plus pour utiliser Offline.",
  "login.invalidCredentials": "E-mail ou mot de passe incorrect.",
  "login.emailTaken": "Un compte existe déjà avec cet e-mail. Connectez-vous plutôt.",
  "login.invalidEmail": "Veuillez saisir une adresse e-mail valide",
  "login.passwordRequired": "Le mot de passe est requis",
  "login.passwordTooShort": "Le mot de passe doit contenir au moins 6 caractères",
  "login.passwordTooLong": "Le mot de passe doit contenir au plus 200 caractères",
  "login.oauthFailed": "La connexion avec {provider} n'a pas abouti. Veuillez réessayer.",
  "login.oauthNoEmail": "{provider} n'a pas partagé d'adresse e-mail vérifiée.",
  "login.backHome": "Retour",

  "toast.signedIn": "Connecté",
  "toast.signedUp": "Compte créé",
  "toast.signedUpBody": "Bienvenue sur Offline !",
  "toast.signedOut": "Déconnecté",
};
