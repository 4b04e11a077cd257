/**
 * A titled card among the cards of Settings and the Availability screen: a small uppercase
 * heading over one card. With an `id`, the heading (`{id}-title`) names the section, a region
 * landmark that links can point at (`#calendar-feed`).
 */
export function CardSection({ id, title, cardClass = "card overflow-hidden", children }: { id?: string; title: string; cardClass?: string; children: JSX.Element }) {
  const titleId = id ? `${id}-title` : undefined;
  return (
    <section id={id} class="mt-6" aria-labelledby={titleId}>
      <h2 id={titleId} class="mb-2 px-1 text-sm font-semibold uppercase tracking-wide text-muted" safe>
        {title}
      </h2>
      <div class={cardClass}>{children as "safe"}</div>
    </section>
  );
}
