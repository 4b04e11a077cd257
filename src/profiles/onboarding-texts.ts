/**
 * Onboarding's five steps and the photo grid it shares with Edit profile.
 * Joined into the profile's texts by `src/profiles/texts.ts`.
 */
export const en = {
  "onboarding.title": "Complete your profile",
  "onboarding.progress": "Step {step} of {total}",
  "onboarding.complete": "Complete Profile",
  "onboarding.saving": "Creating Profile...",
  "onboarding.step1.title": "What's your name?",
  "onboarding.step1.body": "Hosts and guests see your first name.",
  "onboarding.step2.title": "Choose a username",
  "onboarding.step2.body": "Your profile link will be offline/profile/username.",
  "onboarding.step3.title": "When's your birthday?",
  "onboarding.step3.body": "You must be 18 or older. Only your age is shown.",
  "onboarding.step3.hint": "Only your age appears on your profile.",
  "onboarding.step4.title": "Add a photo",
  "onboarding.step4.body": "A clear photo of you helps people feel at ease. The first one is your main photo.",
  "onboarding.step5.title": "Where do you live?",
  "onboarding.step5.body": "We show you activities in your city.",

  "photos.add": "Add photo",
  "photos.hint": "Up to 6 photos. Drag or use the arrows to reorder; the first is your main photo.",
  "photos.main": "Main",
  "photos.moveEarlier": "Move photo {position} earlier",
  "photos.moveLater": "Move photo {position} later",
  "photos.moved": "Photo moved to position {position}",
  "photos.remove": "Remove photo {position}",
  "photos.uploading": "Uploading photo...",
} as const;

export const fr: Record<keyof typeof en, string> = {
  "onboarding.title": "Complétez votre profil",
  "onboarding.progress": "Étape {step} sur {total}",
  "onboarding.complete": "Terminer le profil",
  "onboarding.saving": "Création du profil...",
  "onboarding.step1.title": "Comment vous appelez-vous ?",
  "onboarding.step1.body": "Les hôtes et les invités voient votre prénom.",
  "onboarding.step2.title": "Choisissez un nom d'utilisateur",
  "onboarding.step2.body": "Le lien de votre profil sera offline/profile/nom-d-utilisateur.",
  "onboarding.step3.title": "Quelle est votre date de naissance ?",
  "onboarding.step3.body": "Vous devez avoir 18 ans ou plus. Seul votre âge est affiché.",
  "onboarding.step3.hint": "Seul votre âge apparaît sur votre profil.",
  "onboarding.step4.title": "Ajoutez une photo",
  "onboarding.step4.body": "Une photo nette de vous met les gens en confiance. La première est votre photo principale.",
  "onboarding.step5.title": "Où habitez-vous ?",
  "onboarding.step5.body": "Nous vous montrons les activités de votre ville.",

  "photos.add": "Ajouter une photo",
  "photos.hint": "Jusqu'à 6 photos. Faites glisser ou utilisez les flèches pour les réordonner ; la première est votre photo principale.",
  "photos.main": "Principale",
  "photos.moveEarlier": "Avancer la photo {position}",
  "photos.moveLater": "Reculer la photo {position}",
  "photos.moved": "Photo déplacée en position {position}",
  "photos.remove": "Retirer la photo {position}",
  "photos.uploading": "Envoi de la photo...",
};
