import type { MessageKey } from "../../lib/i18n";
import { aboutChoices, aboutFields, choiceLabel, isVisible, type About, type AboutVisibility } from "../../src/profiles/about";
import { ABOUT_TEXT_MAX, BIO_MAX, PROFILE_PHOTOS_MAX } from "../../shared/limits";
import type { View } from "../../src/shell/view";
import { CharacterCounter, FieldError, FormAlert, ScreenHeader } from "../components/Fields";
import { Island } from "../components/Island";
import { AppLayout } from "../layouts/AppLayout";
import { PhotoGridFallback, photoGridTexts } from "./PhotoGridField";

export interface EditProfileState {
  photos: string[];
  bio: string;
  interests: string;
  about: About;
  visibility: AboutVisibility;
  errors?: Record<string, string>;
  alert?: { title: string; body?: string };
}

/** /edit-profile: photos, bio, interests and the about section with a visibility switch each. */
export function EditProfile({ view, state }: { view: View; state: EditProfileState }) {
  const { t } = view;
  const errors = state.errors ?? {};
  const sections = [
    { id: "virtues", title: t("about.virtues") },
    { id: "vitals", title: t("about.vitals") },
    { id: "vices", title: t("about.vices") },
  ] as const;
  return (
    <AppLayout view={view} title={t("profile.edit")}>
      <form method="post" action="/edit-profile" id="edit-profile" novalidate>
        <input type="hidden" name="_csrf" value={view.csrf} />
        <ScreenHeader view={view} title={t("profile.edit")} back="/profile">
          <button type="submit" class="btn btn-primary" data-busy-text={t("common.saving")} safe>
            {t("common.save")}
          </button>
        </ScreenHeader>
        {state.alert ? <FormAlert title={state.alert.title} body={state.alert.body} /> : ""}

        <section class="mt-2">
          <h2 class="mb-2 text-lg font-semibold" safe>
            {t("profile.photos")}
          </h2>
          <Island name="PhotoGrid" props={{ name: "photos", photos: state.photos, max: PROFILE_PHOTOS_MAX, endpoint: "/api/profile-images", texts: photoGridTexts(view) }}>
            <PhotoGridFallback view={view} name="photos" photos={state.photos} />
          </Island>
          <FieldError id="photos-error" message={errors.photos} />
        </section>

        {/* The bio and the interests are single fields whose label is their title: not sections. */}
        <div class="mt-6">
          <label class="field" for="field-bio">
            <span class="text-lg font-semibold" safe>
              {t("profile.bio")}
            </span>
            <textarea
              id="field-bio"
              name="bio"
              rows="4"
              maxlength={String(BIO_MAX)}
              class="input"
              placeholder={t("profile.bioPlaceholder")}
              aria-invalid={errors.bio ? "true" : undefined}
              aria-describedby="bio-count bio-error"
              data-counter="bio-count"
              safe
            >
              {state.bio}
            </textarea>
            <CharacterCounter view={view} id="bio-count" count={state.bio.length} max={BIO_MAX} />
            <FieldError id="bio-error" message={errors.bio} />
          </label>
        </div>

        <div class="mt-6">
          <label class="field" for="field-interests">
            <span class="text-lg font-semibold" safe>
              {t("profile.interests")}
            </span>
            <input id="field-interests" name="interests" class="input" value={state.interests} maxlength="300" aria-describedby="interests-hint" />
            <span id="interests-hint" class="text-xs text-muted" safe>
              {t("profile.interestsHint")}
            </span>
          </label>
        </div>

        {sections.map((section) => (
          <fieldset class="mt-8">
            <legend class="mb-2 text-lg font-semibold" safe>
              {section.title}
            </legend>
            <div class="card divide-y divide-line">
              {aboutFields
                .filter((f) => f.section === section.id)
                .map((f) => {
                  const id = `about-${f.key}`;
                  const label = t(`about.${f.key}` as MessageKey);
                  const value = state.about[f.key];
                  const visible = isVisible(state.visibility, f);
                  return (
                    <div class="flex flex-col gap-2 p-4">
                      <div class="flex items-center justify-between gap-3">
                        {f.kind === "text" || f.kind === "choice" ? (
                          <label for={id} id={`${id}-label`} class="font-medium" safe>
                            {label}
                          </label>
                        ) : (
                          <span id={`${id}-label`} class="font-medium" safe>
                            {label}
                          </span>
                        )}
                        <label class="flex items-center gap-2 text-sm text-muted">
                          <input type="checkbox" name={`visible_${f.visibilityKey}`} checked={visible} class="h-4 w-4 accent-[#e8553d]" aria-describedby={`${id}-label`} />
                          <span safe>{t("about.showOnProfile")}</span>
                        </label>
                      </div>
                      {f.kind === "text" ? (
                        <input
                          id={id}
                          name={`about_${f.key}`}
                          class="input"
                          value={typeof value === "string" ? value : ""}
                          maxlength={String(ABOUT_TEXT_MAX)}
                          placeholder={f.key === "height" ? t("about.heightPlaceholder") : ""}
                        />
                      ) : f.kind === "choice" ? (
                        <select id={id} name={`about_${f.key}`} class="input">
                          <option value="" selected={!value} safe>
                            {t("about.notSet")}
                          </option>
                          {(aboutChoices[f.key as keyof typeof aboutChoices] as readonly string[]).map((choice) => (
                            <option value={choice} selected={value === choice} safe>
                              {choiceLabel(choice, t)}
                            </option>
                          ))}
                        </select>
                      ) : (
                        <div id={id} role="group" aria-labelledby={`${id}-label`} class="flex flex-wrap gap-2">
                          {aboutChoices.spokenLanguages.map((choice) => (
                            <label class="flex items-center gap-1.5 rounded-full border border-line px-3 py-1 text-sm has-[:checked]:border-brand-500 has-[:checked]:bg-brand-50 dark:has-[:checked]:bg-brand-900/40">
                              <input type="checkbox" name={`about_${f.key}_${choice}`} checked={Array.isArray(value) && value.includes(choice)} class="accent-[#e8553d]" />
                              <span safe>{choiceLabel(choice, t)}</span>
                            </label>
                          ))}
                        </div>
                      )}
                      <FieldError id={`${id}-error`} message={errors[`about.${f.key}`]} />
                    </div>
                  );
                })}
            </div>
          </fieldset>
        ))}

        <div class="mt-8 flex gap-3">
          <a href="/profile" class="btn btn-secondary flex-1" safe>
            {t("common.cancel")}
          </a>
          <button type="submit" class="btn btn-primary flex-1" data-busy-text={t("common.saving")} safe>
            {t("common.save")}
          </button>
        </div>
      </form>
    </AppLayout>
  );
}
