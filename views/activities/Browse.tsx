import type { ActivityCard } from "../../src/activities/service";
import { formatMoney } from "../../src/lib/money";
import type { View } from "../../src/shell/view";
import { photoUrl } from "../../src/uploads/service";
import { Avatar } from "../components/People";
import { AppLayout } from "../layouts/AppLayout";

export function Browse({ view, city, cards, total }: { view: View; city: string; cards: ActivityCard[]; total: number }) {
  const { t } = view;
  return (
    <AppLayout view={view} title={t("home.title", { city })}>
      <>
        <h1 class="text-2xl font-bold" safe>
          {t("home.title", { city })}
        </h1>
        <p class="mt-1 text-sm text-muted" safe>
          {t(total <= 1 ? "browse.found.one" : "browse.found.other", { count: total })}
        </p>
        {cards.length === 0 ? (
          <div class="card mt-6 p-8 text-center">
            <p class="font-semibold" safe>
              {t("browse.empty.title")}
            </p>
            <p class="mt-1 text-sm text-muted" safe>
              {t("browse.empty.body")}
            </p>
          </div>
        ) : (
          <ul class="mt-4 grid grid-cols-1 gap-4 sm:grid-cols-2">
            {cards.map((card) => (
              <li>
                <a href={`/activity/${card.id}`} class="card block overflow-hidden hover:shadow-md focus-visible:shadow-md">
                  <div class="img-frame aspect-[4/3]" data-failed-text={t("browse.imageFailed")}>
                    <img src={photoUrl(card.cover, "thumb")!} alt="" loading="lazy" decoding="async" class="h-full w-full object-cover" />
                  </div>
                  <div class="flex items-start justify-between gap-3 p-3">
                    <div class="min-w-0">
                      <h2 class="truncate font-semibold" safe>
                        {card.title}
                      </h2>
                      <p class="mt-0.5 text-sm text-muted">
                        <span safe>{formatMoney(card.hourlyRateCents, view.locale, { whole: true })}</span>
                        <span safe>{t("browse.perHour")}</span>
                      </p>
                    </div>
                    <span class="shrink-0 text-sm font-medium" safe>
                      {card.rating === null ? t("browse.new") : `★ ${card.rating.toFixed(1)}`}
                    </span>
                  </div>
                  <div class="flex items-center gap-2 px-3 pb-3 text-sm text-muted">
                    <Avatar photo={card.host.photo} name={card.host.firstName} size={24} />
                    <span safe>
                      {[card.host.firstName, card.host.age].filter((v) => v !== null && v !== "").join(", ")}
                    </span>
                  </div>
                </a>
              </li>
            ))}
          </ul>
        )}
      </>
    </AppLayout>
  );
}
