import type { Category } from "../activities/categories";

/** The demo's people, places and activities: believable, and all made up. */

export const DEMO_PASSWORD = "offline-demo";
export const DEMO_GUEST_EMAIL = "guest@offline.test";
export const DEMO_HOST_EMAIL = "host@offline.test";

/** Where the demo happens; each city's time zone comes from the one list of places. */
export const demoCities = [
  { city: "New York", country: "United States" },
  { city: "Paris", country: "France" },
  { city: "London", country: "United Kingdom" },
  { city: "Barcelona", country: "Spain" },
  { city: "Tokyo", country: "Japan" },
] as const;

export interface DemoPerson {
  email: string;
  username: string;
  firstName: string;
  lastName: string;
  dateOfBirth: string;
  city: (typeof demoCities)[number]["city"];
  bio: string;
  languages: string[];
  interests: string[];
}

export const demoHosts: DemoPerson[] = [
  { email: DEMO_HOST_EMAIL, username: "maya.host", firstName: "Maya", lastName: "Rodriguez", dateOfBirth: "1990-04-12", city: "New York", bio: "Tennis coach by day, home cook by night. I love showing people the city's hidden courts.", languages: ["English", "Spanish"], interests: ["tennis", "cooking", "jazz"] },
  { email: "james@offline.test", username: "jamesruns", firstName: "James", lastName: "Carter", dateOfBirth: "1986-09-03", city: "New York", bio: "Marathon runner and certified trainer. Every pace is welcome.", languages: ["English"], interests: ["running", "fitness"] },
  { email: "aiko@offline.test", username: "aiko.art", firstName: "Aiko", lastName: "Tanaka", dateOfBirth: "1994-01-22", city: "New York", bio: "Illustrator and printmaker living in Brooklyn.", languages: ["English", "Japanese"], interests: ["art", "design"] },
  { email: "sam@offline.test", username: "samcodes", firstName: "Sam", lastName: "Okafor", dateOfBirth: "1992-06-30", city: "New York", bio: "Software engineer who likes teaching beginners.", languages: ["English"], interests: ["technology", "chess"] },
  { email: "camille@offline.test", username: "camille.paris", firstName: "Camille", lastName: "Dubois", dateOfBirth: "1988-11-08", city: "Paris", bio: "Pâtissière and walker of every arrondissement.", languages: ["French", "English"], interests: ["food", "walking"] },
  { email: "hugo@offline.test", username: "hugo.music", firstName: "Hugo", lastName: "Martin", dateOfBirth: "1991-02-17", city: "Paris", bio: "Jazz guitarist. I teach by ear and with patience.", languages: ["French", "English"], interests: ["music", "cinema"] },
  { email: "lea@offline.test", username: "lea.yoga", firstName: "Léa", lastName: "Bernard", dateOfBirth: "1995-07-25", city: "Paris", bio: "Yoga teacher for ten years; calm, slow, friendly classes.", languages: ["French", "English", "Italian"], interests: ["wellness", "nature"] },
  { email: "oliver@offline.test", username: "oliver.london", firstName: "Oliver", lastName: "Hughes", dateOfBirth: "1985-03-14", city: "London", bio: "Historian and Thames walker. Ask me about any bridge.", languages: ["English"], interests: ["history", "walking"] },
  { email: "priya@offline.test", username: "priyacooks", firstName: "Priya", lastName: "Shah", dateOfBirth: "1993-12-01", city: "London", bio: "Home cook sharing my grandmother's recipes.", languages: ["English", "Hindi"], interests: ["food", "wellness"] },
  { email: "tom@offline.test", username: "tomclimbs", firstName: "Tom", lastName: "Evans", dateOfBirth: "1990-08-19", city: "London", bio: "Climbing instructor and weekend hiker.", languages: ["English"], interests: ["outdoor", "climbing"] },
  { email: "marta@offline.test", username: "marta.bcn", firstName: "Marta", lastName: "García", dateOfBirth: "1989-05-09", city: "Barcelona", bio: "Surfer, sailor and paella enthusiast.", languages: ["Spanish", "English"], interests: ["outdoor", "food"] },
  { email: "jordi@offline.test", username: "jordi.art", firstName: "Jordi", lastName: "Puig", dateOfBirth: "1987-10-28", city: "Barcelona", bio: "Ceramicist with a studio in Gràcia.", languages: ["Spanish", "English"], interests: ["art", "music"] },
  { email: "kenji@offline.test", username: "kenji.tokyo", firstName: "Kenji", lastName: "Sato", dateOfBirth: "1984-04-04", city: "Tokyo", bio: "Tea ceremony practitioner and ramen explorer.", languages: ["Japanese", "English"], interests: ["food", "culture"] },
  { email: "yuki@offline.test", username: "yuki.moves", firstName: "Yuki", lastName: "Mori", dateOfBirth: "1996-09-15", city: "Tokyo", bio: "Dancer and fitness coach; I make workouts fun.", languages: ["Japanese", "English"], interests: ["fitness", "fun"] },
];

export const demoGuest: DemoPerson = {
  email: DEMO_GUEST_EMAIL,
  username: "alex.guest",
  firstName: "Alex",
  lastName: "Kim",
  dateOfBirth: "1997-03-21",
  city: "New York",
  bio: "New in town and trying a bit of everything.",
  languages: ["English", "Korean"],
  interests: ["tennis", "food", "music"],
};

export interface DemoActivity {
  category: Category;
  title: string;
  description: string;
  rate: number;
  minMinutes?: number;
  maxMinutes?: number;
  meetingPoint?: string;
}

export const demoActivities: DemoActivity[] = [
  { category: "sports", title: "Tennis lesson for beginners", description: "Learn the forehand, backhand and serve on a public court. Rackets and balls provided.", rate: 45, meetingPoint: "Central Park Tennis Center" },
  { category: "sports", title: "Pickup basketball coaching", description: "Sharpen your shooting and footwork with drills, then play a friendly game.", rate: 30 },
  { category: "sports", title: "Table tennis rally hour", description: "Fast rallies, spin basics and a mini tournament. All levels welcome.", rate: 25 },
  { category: "fitness", title: "Sunrise running club", description: "An easy 5 km run with warm-up and stretching. We keep a conversational pace.", rate: 20, minMinutes: 60, maxMinutes: 90 },
  { category: "fitness", title: "Kettlebell strength basics", description: "Safe technique for swings, squats and presses, adapted to your level.", rate: 40 },
  { category: "fitness", title: "Dance cardio in the park", description: "Upbeat choreography you can learn on the spot. Bring water and good shoes.", rate: 22 },
  { category: "outdoor", title: "Intro to bouldering", description: "Climbing basics at an indoor wall: footwork, falling safely and reading routes.", rate: 50, minMinutes: 90 },
  { category: "outdoor", title: "Stand-up paddle session", description: "Balance, paddling and turns on calm water. Board and vest included.", rate: 55 },
  { category: "outdoor", title: "Urban photo walk", description: "Explore side streets with your phone or camera and learn composition tips.", rate: 28 },
  { category: "nature", title: "Birdwatching for beginners", description: "Spot and name the local birds with binoculars I lend you.", rate: 24, minMinutes: 90 },
  { category: "nature", title: "Botanical garden walk", description: "A slow walk among seasonal plants with stories about where they come from.", rate: 18 },
  { category: "nature", title: "Foraging in the city", description: "Find edible plants in parks, safely and respectfully. Tasting included.", rate: 35 },
  { category: "food", title: "Fresh pasta workshop", description: "Make tagliatelle and ravioli from scratch, then eat what you made.", rate: 60, minMinutes: 120 },
  { category: "food", title: "Croissant and pastry class", description: "Laminated dough demystified: fold, shape and bake your own croissants.", rate: 65, minMinutes: 120, maxMinutes: 180 },
  { category: "food", title: "Street food tasting tour", description: "Five stops, five bites and the stories behind them.", rate: 40 },
  { category: "art", title: "Watercolour sketching", description: "Paint a city scene in watercolour. All materials provided.", rate: 35 },
  { category: "art", title: "Pottery wheel taster", description: "Centre clay and throw your first bowl on the wheel.", rate: 55, minMinutes: 90 },
  { category: "art", title: "Linocut printmaking", description: "Carve a design and print your own cards to take home.", rate: 42 },
  { category: "music", title: "Guitar for absolute beginners", description: "Three chords, one song, zero pressure. Guitar provided if you need one.", rate: 38 },
  { category: "music", title: "Jazz piano jam", description: "Learn simple voicings and improvise over a blues.", rate: 48 },
  { category: "music", title: "Singing confidence session", description: "Breathing, warm-ups and one song you love, in a friendly setting.", rate: 36 },
  { category: "entertainment", title: "Improv comedy warm-up", description: "Games that make you laugh and think fast. No experience needed.", rate: 26 },
  { category: "entertainment", title: "Board game café host", description: "I bring the games and teach the rules; you bring the competitive spirit.", rate: 15 },
  { category: "entertainment", title: "Magic tricks workshop", description: "Learn three close-up tricks to amaze your friends.", rate: 30 },
  { category: "learning", title: "Conversational French", description: "Practise everyday French over coffee, at your level.", rate: 32 },
  { category: "learning", title: "Chess strategy lesson", description: "Openings, tactics and one full game with commentary.", rate: 28 },
  { category: "learning", title: "Calligraphy basics", description: "Learn brush lettering with pens and practice sheets I bring.", rate: 34 },
  { category: "technology", title: "Build your first website", description: "HTML and CSS from zero to a page online, on your own laptop.", rate: 50, minMinutes: 120, maxMinutes: 240 },
  { category: "technology", title: "Smartphone photo editing", description: "Get the most from your phone camera and free editing apps.", rate: 30 },
  { category: "technology", title: "Intro to 3D printing", description: "Design a small object and watch it print.", rate: 45 },
  { category: "lifestyle", title: "Coffee brewing masterclass", description: "Pour-over, French press and espresso: taste the difference.", rate: 38 },
  { category: "lifestyle", title: "Thrift styling session", description: "Find your style in second-hand shops with a stylist.", rate: 40 },
  { category: "lifestyle", title: "Houseplant care clinic", description: "Repotting, light and watering for happy plants.", rate: 25 },
  { category: "wellness", title: "Gentle yoga flow", description: "A calm class for all levels, focused on breath and mobility.", rate: 28 },
  { category: "wellness", title: "Guided meditation walk", description: "Slow down with a mindful walk and a short seated practice.", rate: 20 },
  { category: "wellness", title: "Tea ceremony experience", description: "Prepare and share matcha the traditional way.", rate: 45, minMinutes: 60, maxMinutes: 120 },
  { category: "chill", title: "Sunset picnic by the river", description: "Good snacks, a blanket and a great view. I bring the basket.", rate: 30 },
  { category: "chill", title: "Vinyl listening afternoon", description: "Discover classic albums on a good turntable with tea.", rate: 18 },
  { category: "chill", title: "Bookshop and café crawl", description: "Three independent bookshops and a slow coffee in between.", rate: 20 },
  { category: "fun", title: "Karaoke night warm-up", description: "Find your song and your courage before the big night.", rate: 22 },
  { category: "fun", title: "Kite flying in the park", description: "Build a simple kite and fly it together.", rate: 24 },
  { category: "fun", title: "Escape room strategy coach", description: "Learn the tricks of puzzle rooms, then beat one together.", rate: 35, minMinutes: 90 },
  { category: "serious", title: "Public speaking practice", description: "Structure a short talk and deliver it with feedback.", rate: 55 },
  { category: "serious", title: "Personal budget workshop", description: "Build a simple monthly budget you can keep.", rate: 40 },
  { category: "serious", title: "CV and interview prep", description: "Review your CV and rehearse interview questions.", rate: 50 },
];

export const demoReviewTexts = [
  "Wonderful host, patient and fun. I'd book again.",
  "Exactly as described and a great hour.",
  "Learned a lot in a short time. Highly recommended!",
  "Friendly, on time and well prepared.",
  "A lovely way to spend an afternoon.",
  "",
];

/** A session of a demo group activity, some days from today: the spots each demo person holds. */
export interface DemoSession {
  /** Days from today in the activity's city; the first day its weekly hours open on or after it. */
  inDays: number;
  /** The start, on the hour, inside the day's hours. */
  hour: number;
  /** Who holds spots (by username) and how many. */
  guests: [username: string, spots: number][];
  /** The session taken whole by its one booking, at the private group's price. */
  privateGroup?: boolean;
}

/**
 * A group activity of the demo (docs/decisions/0049): sessions of a fixed length whose spots are
 * sold per person, hosted by the demo person `host` (a username) in their city.
 */
export interface DemoGroupActivity {
  host: string;
  category: Category;
  title: string;
  description: string;
  capacity: number;
  /** Dollars per spot. */
  pricePerPerson: number;
  sessionMinutes: number;
  minSpots?: number;
  maxSpots?: number;
  /** Dollars for the whole session booked by one party. */
  privateGroupPrice?: number;
  minToRun?: number;
  minToRunHours?: number;
  /** The weekly hours: the weekdays it runs on (0 Monday … 6 Sunday) and their one range of local minutes. */
  days: number[];
  hours: [number, number];
  meetingPoint?: string;
  sessions: DemoSession[];
}

const EVERY_DAY = [0, 1, 2, 3, 4, 5, 6];

export const demoGroupActivities: DemoGroupActivity[] = [
  {
    host: "maya.host",
    category: "food",
    title: "Tacos and salsa cooking class",
    description: "Cook three kinds of tacos and two salsas side by side with a small group, then sit down to eat together.",
    capacity: 8,
    pricePerPerson: 45,
    sessionMinutes: 150,
    maxSpots: 4,
    privateGroupPrice: 320,
    minToRun: 3,
    minToRunHours: 24,
    days: [1, 2, 3, 4, 5],
    hours: [17 * 60, 22 * 60],
    meetingPoint: "Essex Market, Lower East Side",
    sessions: [
      { inDays: 3, hour: 18, guests: [["alex.guest", 2], ["samcodes", 1], ["aiko.art", 2]] },
      { inDays: 10, hour: 18, guests: [["jamesruns", 2]] },
    ],
  },
  {
    host: "jamesruns",
    category: "fitness",
    title: "Central Park running group",
    description: "An easy 6 km loop at a pace where everyone can talk, with a warm-up before and stretches after.",
    capacity: 12,
    pricePerPerson: 15,
    sessionMinutes: 60,
    maxSpots: 4,
    days: EVERY_DAY,
    hours: [6 * 60, 10 * 60],
    meetingPoint: "Engineers' Gate, Central Park",
    sessions: [{ inDays: 2, hour: 7, guests: [["alex.guest", 1], ["maya.host", 1], ["samcodes", 2]] }],
  },
  {
    host: "camille.paris",
    category: "outdoor",
    title: "Montmartre walking tour",
    description: "Artists' studios, hidden vineyards and the best views of Paris, on a two-hour walk for up to twelve.",
    capacity: 12,
    pricePerPerson: 25,
    sessionMinutes: 120,
    minToRun: 4,
    minToRunHours: 48,
    days: EVERY_DAY,
    hours: [9 * 60, 18 * 60],
    sessions: [{ inDays: 4, hour: 10, guests: [["hugo.music", 2], ["lea.yoga", 1], ["oliver.london", 3]] }],
  },
  {
    host: "lea.yoga",
    category: "wellness",
    title: "Morning yoga by the canal",
    description: "A gentle hour of yoga for all levels on the banks of the Canal Saint-Martin. Mats provided.",
    capacity: 15,
    pricePerPerson: 18,
    sessionMinutes: 60,
    maxSpots: 3,
    days: [0, 1, 2, 3, 4, 5],
    hours: [7 * 60, 11 * 60],
    meetingPoint: "Quai de Valmy, by the Hôtel du Nord",
    sessions: [{ inDays: 1, hour: 8, guests: [["camille.paris", 1], ["hugo.music", 1]] }],
  },
  {
    host: "priyacooks",
    category: "food",
    title: "Curry night cooking class",
    description: "My grandmother's dal, a chicken curry and fresh chapatis, cooked together and shared at one table.",
    capacity: 8,
    pricePerPerson: 55,
    sessionMinutes: 180,
    privateGroupPrice: 400,
    minToRun: 4,
    minToRunHours: 24,
    days: [2, 3, 4, 5, 6],
    hours: [17 * 60, 22 * 60],
    sessions: [
      { inDays: 5, hour: 18, guests: [["oliver.london", 2], ["tomclimbs", 2]] },
      { inDays: 12, hour: 18, guests: [["tomclimbs", 6]], privateGroup: true },
    ],
  },
  {
    host: "oliver.london",
    category: "learning",
    title: "Thames bridges history walk",
    description: "Seven bridges, two thousand years of London and a story at each one. Ninety minutes, rain or shine.",
    capacity: 12,
    pricePerPerson: 20,
    sessionMinutes: 90,
    days: EVERY_DAY,
    hours: [10 * 60, 17 * 60],
    meetingPoint: "South end of Tower Bridge",
    sessions: [],
  },
  {
    host: "marta.bcn",
    category: "food",
    title: "Paella cooking class",
    description: "Shop the market with me, then cook a seafood paella over a wood fire for your table of up to ten.",
    capacity: 10,
    pricePerPerson: 50,
    sessionMinutes: 150,
    privateGroupPrice: 450,
    days: EVERY_DAY,
    hours: [12 * 60, 21 * 60],
    sessions: [{ inDays: 3, hour: 13, guests: [["jordi.art", 2]] }],
  },
  {
    host: "kenji.tokyo",
    category: "wellness",
    title: "Tea ceremony for small groups",
    description: "Learn to whisk, serve and drink matcha the traditional way, in a tatami room for up to six guests.",
    capacity: 6,
    pricePerPerson: 40,
    sessionMinutes: 90,
    minSpots: 2,
    maxSpots: 4,
    minToRun: 2,
    minToRunHours: 24,
    days: EVERY_DAY,
    hours: [10 * 60, 16 * 60],
    sessions: [{ inDays: 6, hour: 11, guests: [["yuki.moves", 2]] }],
  },
  {
    host: "yuki.moves",
    category: "fitness",
    title: "Dance workout class",
    description: "An hour of easy choreography to J-pop hits: a workout that feels like a party. All levels.",
    capacity: 15,
    pricePerPerson: 20,
    sessionMinutes: 60,
    days: EVERY_DAY,
    hours: [18 * 60, 21 * 60],
    sessions: [],
  },
];
