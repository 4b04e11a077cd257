/**
 * The message catalogue: every user-facing text, in English (default) and French. The French
 * entries carry the spec's French texts; `fr` is typed against `en`, so a missing key fails
 * type-checking, and a test checks that no entry is empty.
 */
const en = {
  "app.name": "Offline",
  "app.loading": "Loading...",
  "app.skipToContent": "Skip to content",

  "landing.title": "Offline: hourly activities near you",
  "landing.tagline": "Find amazing activities in your city",
  "landing.intro": "Tennis lessons, cooking classes, city walks: book an hour with a local host.",
  "landing.highlight.local.title": "Local experiences",
  "landing.highlight.local.body": "Discover activities hosted by people in your city.",
  "landing.highlight.people.title": "Meet new people",
  "landing.highlight.people.body": "Learn, play and explore with hosts who love what they do.",
  "landing.highlight.booking.title": "Easy booking",
  "landing.highlight.booking.body": "Built-in messaging and simple payment, all in one place.",
  "landing.signIn": "Sign In",
  "landing.getStarted": "Get Started",

  "nav.label": "Main",
  "nav.browse": "Browse",
  "nav.bookings": "Bookings",
  "nav.host": "Host",
  "nav.profile": "Profile",

  "notFound.title": "Page Not Found",
  "notFound.body": "The page you are looking for does not exist or has moved.",
  "notFound.back": "Back to Browse",

  "error.title": "Something went wrong",
  "error.body": "Please try again in a moment.",
  "error.csrf": "Your session has expired or the request came from another site. Reload the page and try again.",
  "error.badRequest": "The request could not be understood.",
  "error.unauthorized": "Please sign in to continue.",
  "error.notFound": "Not found",
  "error.tooMany": "Too many attempts. Please wait {minutes} minutes and try again.",

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

  "shell.offline": "You're offline. Some features may be limited.",
  "shell.install.title": "Install Offline",
  "shell.install.body": "Add Offline to your home screen for quick access.",
  "shell.install.accept": "Install",
  "shell.install.dismiss": "Not now",
  "shell.theme.toggle": "Dark theme",
  "shell.notifications": "Notifications (F8)",
  "shell.dismiss": "Dismiss",
  "shell.signOut": "Sign Out",
  "shell.welcomeBack": "Welcome back!",

  "toast.signedIn": "Signed in",
  "toast.signedUp": "Account created",
  "toast.signedUpBody": "Welcome to Offline!",
  "toast.signedOut": "Signed out",

  "upload.failed": "Error uploading image",
  "upload.processingFailed": "Error processing image",
  "upload.notImage": "This file is not a supported image. Use a JPEG, PNG, WebP, GIF or AVIF photo.",
  "upload.tooLarge": "This image is too large: 10 MB at most.",
  "upload.tooManyPixels": "This image has too many pixels: 40 megapixels at most.",
  "upload.invalid": "This upload link is not valid. Please try again.",
  "upload.expired": "This upload link has expired. Please try again.",

  "home.title": "Activities in {city}",
  "category.sports": "Sports",
  "category.fitness": "Fitness",
  "category.outdoor": "Outdoor",
  "category.nature": "Nature",
  "category.food": "Food",
  "category.art": "Art",
  "category.music": "Music",
  "category.entertainment": "Entertainment",
  "category.learning": "Learning",
  "category.technology": "Technology",
  "category.lifestyle": "Lifestyle",
  "category.wellness": "Wellness",
  "category.chill": "Chill",
  "category.fun": "Fun",
  "category.serious": "Serious",
  "browse.found.one": "{count} activity found",
  "browse.found.other": "{count} activities found",
  "browse.empty.title": "No activities found",
  "browse.empty.body": "Try changing your city or category",
  "browse.perHour": "/hour",
  "browse.hostedBy": "Hosted by {name}",
  "browse.new": "New",
  "browse.imageFailed": "Failed to load image",
} as const;

export type MessageKey = keyof typeof en;
export type Catalogue = Record<MessageKey, string>;

const fr: Catalogue = {
  "app.name": "Offline",
  "app.loading": "Chargement...",
  "app.skipToContent": "Aller au contenu",

  "landing.title": "Offline : des activités à l'heure près de chez vous",
  "landing.tagline": "Trouvez des activités incroyables dans votre ville",
  "landing.intro": "Cours de tennis, ateliers de cuisine, balades en ville : réservez une heure avec un hôte local.",
  "landing.highlight.local.title": "Expériences locales",
  "landing.highlight.local.body": "Découvrez des activités proposées par des habitants de votre ville.",
  "landing.highlight.people.title": "Rencontrez du monde",
  "landing.highlight.people.body": "Apprenez, jouez et explorez avec des hôtes passionnés.",
  "landing.highlight.booking.title": "Réservation facile",
  "landing.highlight.booking.body": "Messagerie intégrée et paiement simple, au même endroit.",
  "landing.signIn": "Se connecter",
  "landing.getStarted": "Commencer",

  "nav.label": "Principale",
  "nav.browse": "Explorer",
  "nav.bookings": "Réservations",
  "nav.host": "Hôte",
  "nav.profile": "Profil",

  "notFound.title": "Page introuvable",
  "notFound.body": "La page que vous cherchez n'existe pas ou a été déplacée.",
  "notFound.back": "Retour à l'exploration",

  "error.title": "Une erreur est survenue",
  "error.body": "Veuillez réessayer dans un instant.",
  "error.csrf": "Votre session a expiré ou la requête vient d'un autre site. Rechargez la page et réessayez.",
  "error.badRequest": "La requête n'a pas pu être comprise.",
  "error.unauthorized": "Veuillez vous connecter pour continuer.",
  "error.notFound": "Introuvable",
  "error.tooMany": "Trop de tentatives. Patientez {minutes} minutes puis réessayez.",

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

  "shell.offline": "Vous êtes hors ligne. Certaines fonctionnalités peuvent être limitées.",
  "shell.install.title": "Installer Offline",
  "shell.install.body": "Ajoutez Offline à votre écran d'accueil pour un accès rapide.",
  "shell.install.accept": "Installer",
  "shell.install.dismiss": "Plus tard",
  "shell.theme.toggle": "Thème sombre",
  "shell.notifications": "Notifications (F8)",
  "shell.dismiss": "Fermer",
  "shell.signOut": "Se déconnecter",
  "shell.welcomeBack": "Bon retour !",

  "toast.signedIn": "Connecté",
  "toast.signedUp": "Compte créé",
  "toast.signedUpBody": "Bienvenue sur Offline !",
  "toast.signedOut": "Déconnecté",

  "upload.failed": "Erreur lors de l'upload de l'image",
  "upload.processingFailed": "Erreur lors du traitement de l'image",
  "upload.notImage": "Ce fichier n'est pas une image prise en charge. Utilisez une photo JPEG, PNG, WebP, GIF ou AVIF.",
  "upload.tooLarge": "Cette image est trop lourde : 10 Mo au maximum.",
  "upload.tooManyPixels": "Cette image a trop de pixels : 40 mégapixels au maximum.",
  "upload.invalid": "Ce lien d'envoi n'est pas valide. Veuillez réessayer.",
  "upload.expired": "Ce lien d'envoi a expiré. Veuillez réessayer.",

  "home.title": "Activités à {city}",
  "category.sports": "Sport",
  "category.fitness": "Fitness",
  "category.outdoor": "Plein air",
  "category.nature": "Nature",
  "category.food": "Cuisine",
  "category.art": "Art",
  "category.music": "Musique",
  "category.entertainment": "Divertissement",
  "category.learning": "Apprentissage",
  "category.technology": "Technologie",
  "category.lifestyle": "Art de vivre",
  "category.wellness": "Bien-être",
  "category.chill": "Détente",
  "category.fun": "Fun",
  "category.serious": "Sérieux",
  "browse.found.one": "{count} activité trouvée",
  "browse.found.other": "{count} activités trouvées",
  "browse.empty.title": "Aucune activité trouvée",
  "browse.empty.body": "Essayez de changer de ville ou de catégorie",
  "browse.perHour": "/heure",
  "browse.hostedBy": "Proposé par {name}",
  "browse.new": "Nouveau",
  "browse.imageFailed": "Impossible de charger l'image",
};

export const catalogues = { en, fr } satisfies Record<string, Catalogue>;
export type Locale = keyof typeof catalogues;
export const locales = Object.keys(catalogues) as Locale[];

export type Translate = (key: MessageKey, params?: Record<string, string | number>) => string;

export function translator(locale: Locale): Translate {
  const catalogue: Catalogue = catalogues[locale];
  return (key, params) => {
    const text = catalogue[key] ?? en[key] ?? key;
    if (!params) return text;
    return text.replace(/\{(\w+)\}/g, (m, name: string) => (name in params ? String(params[name]) : m));
  };
}

export function isMessageKey(key: string): key is MessageKey {
  return Object.hasOwn(en, key);
}

/** Picks the interface language: the user's choice, then the `lang` cookie, then the browser's. */
export function pickLocale(opts: {
  userLocale?: string | null;
  cookie?: string | null;
  acceptLanguage?: string | null;
  fallback: Locale;
}): Locale {
  for (const candidate of [opts.userLocale, opts.cookie]) {
    if (candidate && (locales as string[]).includes(candidate)) return candidate as Locale;
  }
  if (opts.acceptLanguage) {
    const ranked = opts.acceptLanguage
      .split(",")
      .map((part) => {
        const [tag = "", ...rest] = part.trim().split(";");
        const q = rest.find((r) => r.trim().startsWith("q="));
        return { lang: tag.toLowerCase().split("-")[0] ?? "", q: q ? Number(q.trim().slice(2)) || 0 : 1 };
      })
      .sort((a, b) => b.q - a.q);
    for (const { lang } of ranked) if ((locales as string[]).includes(lang)) return lang as Locale;
  }
  return opts.fallback;
}
