/**
 * Draws the photos that ship with the app: three illustrations per category (used as default
 * and demo activity photos) and twelve avatars for demo people. Plain SVG, a few KB each.
 * Run again only to change the art: `bun scripts/draw-photos.ts`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { categories, type Category } from "../src/activities/categories";

const palettes: Record<Category, [string, string, string]> = {
  sports: ["#0f766e", "#14b8a6", "#fde68a"],
  fitness: ["#9a3412", "#f97316", "#fed7aa"],
  outdoor: ["#1e3a8a", "#3b82f6", "#bbf7d0"],
  nature: ["#14532d", "#22c55e", "#fef9c3"],
  food: ["#9f1239", "#fb7185", "#fde68a"],
  art: ["#6b21a8", "#c084fc", "#fbcfe8"],
  music: ["#312e81", "#6366f1", "#fcd34d"],
  entertainment: ["#7c2d12", "#ef4444", "#fde047"],
  learning: ["#0c4a6e", "#0ea5e9", "#e0f2fe"],
  technology: ["#111827", "#4f46e5", "#67e8f9"],
  lifestyle: ["#831843", "#f472b6", "#fce7f3"],
  wellness: ["#134e4a", "#5eead4", "#fef3c7"],
  chill: ["#1e40af", "#93c5fd", "#fef3c7"],
  fun: ["#a21caf", "#f0abfc", "#fef08a"],
  serious: ["#1f2937", "#64748b", "#e2e8f0"],
};

/** A white pictogram per category, drawn in a 200×200 box. */
const pictograms: Record<Category, string> = {
  sports: `<circle cx="100" cy="100" r="70" fill="none" stroke="#fff" stroke-width="10"/><path d="M40 70c40 10 80 10 120 0M40 130c40-10 80-10 120 0" fill="none" stroke="#fff" stroke-width="10"/>`,
  fitness: `<rect x="20" y="70" width="24" height="60" rx="6" fill="#fff"/><rect x="156" y="70" width="24" height="60" rx="6" fill="#fff"/><rect x="44" y="85" width="18" height="30" rx="4" fill="#fff"/><rect x="138" y="85" width="18" height="30" rx="4" fill="#fff"/><rect x="62" y="94" width="76" height="12" fill="#fff"/>`,
  outdoor: `<path d="M10 170 80 50l40 60 20-30 50 90Z" fill="#fff"/><path d="M80 50l-16 28 16-8 16 8Z" fill="#cbd5e1"/>`,
  nature: `<path d="M100 20c50 40 60 100 0 150C40 120 50 60 100 20Z" fill="#fff"/><path d="M100 50v140" stroke="#cbd5e1" stroke-width="8"/>`,
  food: `<path d="M60 20v60a14 14 0 0 0 28 0V20M74 20v160" stroke="#fff" stroke-width="10" fill="none" stroke-linecap="round"/><path d="M130 20c25 10 25 70 0 80v80" stroke="#fff" stroke-width="10" fill="none" stroke-linecap="round"/>`,
  art: `<path d="M100 20a80 80 0 1 0 0 160c14 0 16-14 8-24s-4-26 14-26h24c20 0 34-16 34-36 0-42-36-74-80-74Z" fill="#fff"/><circle cx="60" cy="80" r="12" fill="#f472b6"/><circle cx="95" cy="52" r="12" fill="#60a5fa"/><circle cx="135" cy="70" r="12" fill="#facc15"/><circle cx="60" cy="125" r="12" fill="#34d399"/>`,
  music: `<path d="M80 150V40l90-20v110" stroke="#fff" stroke-width="12" fill="none"/><circle cx="58" cy="150" r="24" fill="#fff"/><circle cx="148" cy="132" r="24" fill="#fff"/>`,
  entertainment: `<path d="M100 18l22 52 56 5-42 37 13 55-49-29-49 29 13-55-42-37 56-5Z" fill="#fff"/>`,
  learning: `<path d="M20 50c30-10 60-10 80 10v120c-20-20-50-20-80-10Z" fill="#fff"/><path d="M180 50c-30-10-60-10-80 10v120c20-20 50-20 80-10Z" fill="#e2e8f0"/>`,
  technology: `<rect x="30" y="40" width="140" height="95" rx="10" fill="#fff"/><rect x="42" y="52" width="116" height="71" rx="4" fill="#1e293b"/><path d="M15 150h170l-12 18H27Z" fill="#fff"/><path d="M62 80l-12 10 12 10M138 80l12 10-12 10M108 70l-16 40" stroke="#67e8f9" stroke-width="6" fill="none"/>`,
  lifestyle: `<path d="M50 70h90v50a45 45 0 0 1-90 0Z" fill="#fff"/><path d="M140 80h12a20 20 0 0 1 0 40h-14" stroke="#fff" stroke-width="10" fill="none"/><path d="M75 20c-10 15 10 20 0 38M100 20c-10 15 10 20 0 38" stroke="#fff" stroke-width="6" fill="none" stroke-linecap="round"/>`,
  wellness: `<path d="M100 40c20 25 20 55 0 90-20-35-20-65 0-90ZM100 130c-30-5-55-25-65-55 35 0 55 20 65 55ZM100 130c30-5 55-25 65-55-35 0-55 20-65 55Z" fill="#fff"/><path d="M40 160h120" stroke="#fff" stroke-width="8" stroke-linecap="round"/>`,
  chill: `<path d="M20 140c30-20 50-20 80 0s50 20 80 0" stroke="#fff" stroke-width="10" fill="none"/><path d="M20 170c30-20 50-20 80 0s50 20 80 0" stroke="#fff" stroke-width="10" fill="none" opacity=".7"/><circle cx="140" cy="60" r="30" fill="#fff"/>`,
  fun: `<ellipse cx="100" cy="80" rx="50" ry="60" fill="#fff"/><path d="M100 140l-8 12h16Z" fill="#fff"/><path d="M100 152c-10 15 10 25 0 40" stroke="#fff" stroke-width="4" fill="none"/>`,
  serious: `<rect x="25" y="65" width="150" height="100" rx="12" fill="#fff"/><path d="M75 65V45a10 10 0 0 1 10-10h30a10 10 0 0 1 10 10v20" stroke="#fff" stroke-width="10" fill="none"/><path d="M25 105h150" stroke="#94a3b8" stroke-width="6"/>`,
};

function photo(category: Category, variant: number): string {
  const [dark, mid, light] = palettes[category];
  const hills = [
    `<path d="M0 470c150-60 300-70 450-30s250 40 350 0v160H0Z" fill="${dark}" opacity=".55"/>`,
    `<path d="M0 500c120-90 260-90 400-40s280 40 400-20v160H0Z" fill="${dark}" opacity=".5"/>`,
    `<path d="M0 440c200 40 400 60 800-40v200H0Z" fill="${dark}" opacity=".45"/>`,
  ][variant % 3];
  const sun = [
    `<circle cx="640" cy="130" r="70" fill="${light}" opacity=".85"/>`,
    `<circle cx="150" cy="120" r="90" fill="${light}" opacity=".6"/>`,
    `<circle cx="700" cy="90" r="120" fill="${light}" opacity=".4"/>`,
  ][variant % 3];
  const angle = [0, -8, 6][variant % 3];
  const gradient = [
    [mid, dark],
    [light, mid],
    [dark, mid],
  ][variant % 3]!;
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 800 600" width="800" height="600"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${gradient[0]}"/><stop offset="1" stop-color="${gradient[1]}"/></linearGradient></defs><rect width="800" height="600" fill="url(#g)"/>${sun}<circle cx="${120 + variant * 220}" cy="420" r="160" fill="#fff" opacity=".08"/>${hills}<g transform="translate(300 170) rotate(${angle} 100 100)" opacity=".95">${pictograms[category]}</g></svg>\n`;
}

const skin = ["#f1c27d", "#e0ac69", "#c68642", "#8d5524", "#ffdbac", "#a0522d"];
const hair = ["#2c1b10", "#6b4226", "#d4a373", "#1f1f1f", "#b5651d", "#7f7f7f"];
const shirts = ["#e8553d", "#0ea5e9", "#22c55e", "#a855f7", "#f59e0b", "#ec4899"];
const backgrounds = ["#fde68a", "#bfdbfe", "#bbf7d0", "#fbcfe8", "#ddd6fe", "#fed7aa"];

function avatar(i: number): string {
  const s = skin[i % skin.length];
  const h = hair[(i * 5) % hair.length];
  const shirt = shirts[(i * 7) % shirts.length];
  const bg = backgrounds[(i * 3) % backgrounds.length];
  const hairShape =
    i % 3 === 0
      ? `<path d="M130 150c0-60 140-60 140 0v20c-20-30-120-30-140 0Z" fill="${h}"/>`
      : i % 3 === 1
        ? `<path d="M120 170c-10-90 170-90 160 0v90c-10 0-20-10-20-30v-70c-30-20-90-20-120 0v70c0 20-10 30-20 30Z" fill="${h}"/>`
        : `<path d="M135 140c20-40 110-40 130 0-40-10-90-10-130 0Z" fill="${h}"/>`;
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 400 400" width="400" height="400"><rect width="400" height="400" fill="${bg}"/><path d="M70 400c10-90 70-130 130-130s120 40 130 130Z" fill="${shirt}"/><rect x="175" y="230" width="50" height="50" fill="${s}"/><ellipse cx="200" cy="180" rx="70" ry="80" fill="${s}"/>${hairShape}<circle cx="175" cy="185" r="6" fill="#1f2937"/><circle cx="225" cy="185" r="6" fill="#1f2937"/><path d="M180 220c12 10 28 10 40 0" stroke="#1f2937" stroke-width="5" fill="none" stroke-linecap="round"/></svg>\n`;
}

mkdirSync("public/photos", { recursive: true });
mkdirSync("public/avatars", { recursive: true });
for (const category of categories) {
  for (let v = 0; v < 3; v++) writeFileSync(`public/photos/${category}-${v + 1}.svg`, photo(category, v));
}
for (let i = 0; i < 12; i++) writeFileSync(`public/avatars/avatar-${i + 1}.svg`, avatar(i));
console.log(`Drew ${categories.length * 3} photos and 12 avatars.`);
