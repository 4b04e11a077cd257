/**
 * The countries people live in and the cities activities happen in, each city with its IANA
 * time zone (an activity's times are wall-clock times there) and each country with the currency
 * its activities are priced and paid in (an ISO 4217 code, lower case; a city may have its own).
 * Within a country the first ten cities are the most asked for; screens show them first, then a
 * separator, then the rest.
 *
 * To add a place: add its country (name, currency) or its city (name, time zone) below. A
 * currency needs nothing more: its minor unit comes from ISO 4217 through `Intl` (lib/money.ts).
 */
export interface City {
  name: string;
  timeZone: string;
  /** The city's own currency, where it is not its country's. */
  currency?: string;
}

export interface Country {
  name: string;
  /** The currency of its cities' activities (ISO 4217, lower case). */
  currency: string;
  cities: City[];
}

const c = (timeZone: string, ...names: string[]): City[] => names.map((name) => ({ name, timeZone }));

export const countries: Country[] = [
  {
    name: "United States",
    currency: "usd",
    cities: [
      ...c("America/New_York", "New York"),
      ...c("America/Los_Angeles", "Los Angeles"),
      ...c("America/Chicago", "Chicago"),
      ...c("America/Chicago", "Houston"),
      ...c("America/Phoenix", "Phoenix"),
      ...c("America/New_York", "Philadelphia"),
      ...c("America/Chicago", "San Antonio"),
      ...c("America/Los_Angeles", "San Diego"),
      ...c("America/Chicago", "Dallas"),
      ...c("America/Los_Angeles", "San Francisco"),
      ...c("America/Chicago", "Austin"),
      ...c("America/Los_Angeles", "San Jose"),
      ...c("America/Chicago", "Fort Worth"),
      ...c("America/New_York", "Jacksonville"),
      ...c("America/New_York", "Columbus"),
      ...c("America/New_York", "Charlotte"),
      ...c("America/New_York", "Indianapolis"),
      ...c("America/Los_Angeles", "Seattle"),
      ...c("America/Denver", "Denver"),
      ...c("America/New_York", "Washington"),
      ...c("America/New_York", "Boston"),
      ...c("America/Denver", "El Paso"),
      ...c("America/Chicago", "Nashville"),
      ...c("America/New_York", "Detroit"),
      ...c("America/Chicago", "Oklahoma City"),
      ...c("America/Los_Angeles", "Portland"),
      ...c("America/Los_Angeles", "Las Vegas"),
      ...c("America/Chicago", "Memphis"),
      ...c("America/New_York", "Louisville"),
      ...c("America/New_York", "Baltimore"),
      ...c("America/Chicago", "Milwaukee"),
      ...c("America/Denver", "Albuquerque"),
      ...c("America/Phoenix", "Tucson"),
      ...c("America/Los_Angeles", "Fresno"),
      ...c("America/Los_Angeles", "Sacramento"),
      ...c("America/Chicago", "Kansas City"),
      ...c("America/Phoenix", "Mesa"),
      ...c("America/New_York", "Atlanta"),
      ...c("America/Chicago", "Omaha"),
      ...c("America/Denver", "Colorado Springs"),
      ...c("America/New_York", "Raleigh"),
      ...c("America/New_York", "Miami"),
      ...c("America/Los_Angeles", "Long Beach"),
      ...c("America/New_York", "Virginia Beach"),
      ...c("America/Los_Angeles", "Oakland"),
      ...c("America/Chicago", "Minneapolis"),
      ...c("America/Chicago", "New Orleans"),
      ...c("America/New_York", "Tampa"),
      ...c("Pacific/Honolulu", "Honolulu"),
      ...c("America/Denver", "Salt Lake City"),
    ],
  },
  {
    name: "France",
    currency: "eur",
    cities: c("Europe/Paris", "Paris", "Marseille", "Lyon", "Toulouse", "Nice", "Nantes", "Strasbourg", "Montpellier", "Bordeaux", "Lille", "Rennes", "Grenoble"),
  },
  {
    name: "United Kingdom",
    currency: "gbp",
    cities: c("Europe/London", "London", "Manchester", "Birmingham", "Edinburgh", "Glasgow", "Liverpool", "Bristol", "Leeds", "Newcastle", "Brighton", "Cardiff", "Belfast"),
  },
  {
    name: "Canada",
    currency: "cad",
    cities: [
      ...c("America/Toronto", "Toronto", "Montreal", "Ottawa", "Quebec City"),
      ...c("America/Vancouver", "Vancouver", "Victoria"),
      ...c("America/Edmonton", "Calgary", "Edmonton"),
      ...c("America/Winnipeg", "Winnipeg"),
      ...c("America/Halifax", "Halifax"),
      ...c("America/Toronto", "Hamilton"),
    ],
  },
  {
    name: "Germany",
    currency: "eur",
    cities: c("Europe/Berlin", "Berlin", "Hamburg", "Munich", "Cologne", "Frankfurt", "Stuttgart", "Düsseldorf", "Leipzig", "Dresden", "Hanover", "Nuremberg"),
  },
  {
    name: "Spain",
    currency: "eur",
    cities: [
      ...c("Europe/Madrid", "Madrid", "Barcelona", "Valencia", "Seville", "Zaragoza", "Málaga", "Bilbao", "Palma", "Granada", "Alicante"),
      ...c("Atlantic/Canary", "Las Palmas"),
    ],
  },
  {
    name: "Italy",
    currency: "eur",
    cities: c("Europe/Rome", "Rome", "Milan", "Naples", "Turin", "Florence", "Bologna", "Venice", "Genoa", "Palermo", "Verona", "Bari"),
  },
  {
    name: "Australia",
    currency: "aud",
    cities: [
      ...c("Australia/Sydney", "Sydney"),
      ...c("Australia/Melbourne", "Melbourne"),
      ...c("Australia/Brisbane", "Brisbane"),
      ...c("Australia/Perth", "Perth"),
      ...c("Australia/Adelaide", "Adelaide"),
      ...c("Australia/Brisbane", "Gold Coast"),
      ...c("Australia/Sydney", "Canberra", "Newcastle"),
      ...c("Australia/Hobart", "Hobart"),
      ...c("Australia/Darwin", "Darwin"),
    ],
  },
  {
    name: "Japan",
    currency: "jpy",
    cities: c("Asia/Tokyo", "Tokyo", "Osaka", "Kyoto", "Yokohama", "Nagoya", "Sapporo", "Fukuoka", "Kobe", "Hiroshima", "Sendai", "Naha"),
  },
  {
    name: "Brazil",
    currency: "brl",
    cities: [
      ...c("America/Sao_Paulo", "São Paulo", "Rio de Janeiro", "Belo Horizonte", "Brasília", "Curitiba", "Porto Alegre", "Salvador", "Recife", "Fortaleza", "Florianópolis"),
      ...c("America/Manaus", "Manaus"),
    ],
  },
  {
    name: "Israel",
    currency: "ils",
    cities: c("Asia/Jerusalem", "Tel Aviv", "Jerusalem", "Haifa", "Eilat", "Be'er Sheva", "Netanya", "Herzliya", "Ashdod", "Rishon LeZion", "Nazareth"),
  },
];

/** How many entries a list highlights before its separator. */
export const HIGHLIGHTED = 10;

export function findCountry(name: unknown): Country | undefined {
  return typeof name === "string" ? countries.find((country) => country.name === name) : undefined;
}

/** Every city by its name, with its country and currency (the first country's, for a name two countries share). Read on every browse page. */
const citiesByName = new Map<string, Readonly<City & { country: string; currency: string }>>();
for (const country of countries) {
  for (const city of country.cities) if (!citiesByName.has(city.name)) citiesByName.set(city.name, Object.freeze({ ...city, country: country.name, currency: city.currency ?? country.currency }));
}

/** A city by name alone (browse takes any city of the list), with its country and currency. */
export function cityByName(name: unknown): Readonly<City & { country: string; currency: string }> | undefined {
  return typeof name === "string" ? citiesByName.get(name) : undefined;
}

/** The IANA zone of a city by its name; UTC for a place we do not know (or none). */
export const zoneOfCity = (name: unknown): string => cityByName(name)?.timeZone ?? "UTC";

export function findCity(countryName: unknown, cityName: unknown): City | undefined {
  return typeof cityName === "string" ? findCountry(countryName)?.cities.find((city) => city.name === cityName) : undefined;
}

/** The currency of a city of a country (its own, else its country's); undefined for a place we do not know. */
export function currencyOf(countryName: unknown, cityName: unknown): string | undefined {
  const country = findCountry(countryName);
  const city = typeof cityName === "string" ? country?.cities.find((c) => c.name === cityName) : undefined;
  return city ? (city.currency ?? country!.currency) : undefined;
}

/** The first ten as listed, then the rest in alphabetical order. */
export function splitHighlighted<T>(items: T[], name: (item: T) => string): { top: T[]; rest: T[] } {
  const top = items.slice(0, HIGHLIGHTED);
  const rest = items.slice(HIGHLIGHTED).sort((a, b) => name(a).localeCompare(name(b)));
  return { top, rest };
}

/** Where people without a place of their own are shown activities (spec: New York). */
export const DEFAULT_COUNTRY = "United States";
export const DEFAULT_CITY_NAME = "New York";

/**
 * The place a time zone is named after, as people say it: "New York" for "America/New_York"
 * ("New York time"). The zone id itself is for machines, never shown.
 */
export const zonePlace = (zone: string): string => (zone.split("/").pop() ?? zone).replace(/_/g, " ");
