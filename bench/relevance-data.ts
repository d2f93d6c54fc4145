// A labelled set for the relevance bench: for each of several brands whose name is a common word, a few
// hundred posts that name it, some about the brand and some about the word's other senses, generated
// from a seeded PRNG so every run reads the same posts. Made to be hard in the ways real feeds are:
// both senses share everyday words ("love", "team", "today", "new", "update"), the brand is sometimes
// written in lower case and the other sense sometimes capitalized (titles, sentence starts), links and
// authors appear on both sides, a few labels are flipped (people disagree), and no single word decides:
// each sense has dozens of phrasings, none in more than a small share of its posts.

export interface LabelledPost {
  brand: string;
  text: string;
  source: "x" | "reddit" | "youtube" | "linkedin";
  author: string;
  relevant: boolean;
}

export interface BrandSpec {
  name: string;
  description: string;
  aliases: string[];
  excludedTerms: string[];
  /** Phrases of the brand's own sense, with {B} where the name goes. */
  product: string[];
  /** Phrases of the word's other senses. */
  other: string[];
  productDomains: string[];
}

const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

const OPENERS = ["", "", "", "ok so", "honestly", "quick one:", "PSA:", "lol", "today", "anyone else?", "hot take:", "update:", "not gonna lie", "thread:", "fun fact:"];
const CLOSERS = ["", "", "", "", "love it", "any tips?", "thoughts?", "what a day", "so good", "meh", "again today", "👀", "🔥", "worth it", "new week new me", "will update later", "team effort", "cannot wait"];
const OFF_DOMAINS = ["youtube.com", "wikipedia.org", "medium.com", "github.com", "nytimes.com", "substack.com"];

export const BRANDS: BrandSpec[] = [
  {
    name: "Linear",
    description: "Linear is the issue tracking and project planning tool for software teams: issues, cycles, roadmaps.",
    aliases: ["linear.app"],
    excludedTerms: ["linear algebra"],
    product: [
      "moved our backlog to {B}", "{B} cycles keep the sprint honest", "filed the bug in {B}", "{B} triage view is great", "our roadmap lives in {B} now",
      "the {B} github integration closes issues on merge", "{B} keyboard shortcuts are addictive", "migrating from jira to {B}", "{B} projects for the q3 launch",
      "the new {B} update has better views", "{B} is down again?", "engineering team loves {B}", "{B} issue templates saved us hours", "{B} vs asana for a startup",
      "assigned you the ticket in {B}", "{B} slack notifications are noisy", "product managers using {B} for specs", "{B} api for custom workflows",
    ],
    other: [
      "solve the {B} equation first", "a {B} regression fits the data", "growth is not {B}, it is exponential", "{B} time complexity in the worst case",
      "plot the {B} function", "the story is too {B} for me", "{B} progression of the levels in this game", "{B} scale vs log scale on the chart",
      "a {B} model for the team data", "the {B} relationship between sleep and mood", "{B} thinking will not fix this", "{B} motion in physics class today",
      "new {B} actuator for the robot arm", "{B} programming homework due", "the update made the curve {B}", "a {B} narrative with no twists",
    ],
    productDomains: ["linear.app"],
  },
  {
    name: "Cursor",
    description: "Cursor is the AI code editor: write, edit and chat with your codebase.",
    aliases: ["cursor.com", "Cursor AI"],
    excludedTerms: ["mouse cursor"],
    product: [
      "{B} wrote the whole refactor", "switched from vscode to {B}", "{B} tab completion is unreal", "{B} agent fixed the failing tests", "{B} pricing changed again",
      "pair programming with {B} today", "{B} composer for multi-file edits", "the {B} editor indexes the repo", "{B} rules file for our codebase", "{B} vs copilot for python",
      "our dev team pays for {B} seats", "{B} chat explained the legacy code", "new {B} update broke my keybindings", "{B} is my favourite ide now", "{B} with claude is so good",
    ],
    other: [
      "the {B} disappears on my second monitor", "blinking {B} in the terminal", "database {B} left open", "move the {B} to the end of the line", "custom {B} for my game",
      "the {B} lags when i drag windows", "a server side {B} for pagination", "{B} position in the text box", "{B} keeps jumping while typing on the laptop",
      "the sql {B} loops over rows", "{B} size in accessibility settings", "the {B} froze again today", "{B} theme pack for windows", "{B} stuck in the corner of the screen",
    ],
    productDomains: ["cursor.com", "cursor.sh"],
  },
  {
    name: "Notion",
    description: "Notion is the connected workspace for notes, docs, wikis and projects.",
    aliases: ["notion.so"],
    excludedTerms: ["the notion that"],
    product: [
      "my whole life is in {B}", "{B} template for weekly planning", "our team wiki moved to {B}", "{B} databases are powerful", "{B} ai summarised the meeting notes",
      "{B} calendar integration", "built a crm in {B}", "{B} page for the product spec", "{B} vs obsidian for notes", "{B} is slow to load today", "sharing the {B} doc with the team",
      "{B} formulas are confusing", "new {B} update adds charts", "{B} workspace for the startup", "exported my {B} pages to markdown",
    ],
    other: [
      "I reject that {B} entirely", "the very {B} of time is strange", "a vague {B} of what to do", "had no {B} how late it was", "the {B} of free will",
      "a romantic {B} of the past", "the {B} of fairness in the team", "any {B} where the keys are?", "a common {B} among voters", "the {B} of a new beginning",
      "challenges the {B} of progress", "a {B} shop selling thread and buttons", "sewing {B} and fabric haul", "a {B} worth exploring in the essay",
    ],
    productDomains: ["notion.so", "notion.com"],
  },
  {
    name: "Mercury",
    description: "Mercury is banking for startups: business checking, treasury, cards and payments.",
    aliases: ["mercury.com", "Mercury bank"],
    excludedTerms: ["freddie mercury"],
    product: [
      "opened a business account at {B}", "{B} wire transfer arrived fast", "{B} treasury yield for our runway", "{B} debit cards for the team", "{B} vs brex for a startup",
      "{B} invoicing saves time", "our startup banks with {B}", "{B} app is clean", "{B} support answered in minutes", "{B} raised fees?", "founders love {B} banking",
      "{B} api for payouts", "moved the company funds to {B}", "{B} venture debt offer", "{B} bill pay for contractors",
    ],
    other: [
      "{B} in retrograde again", "{B} levels in tuna", "the planet {B} at sunrise", "{B} thermometer broke", "{B} is closest to the sun", "{B} poisoning symptoms",
      "a {B} prize record from 1975", "the god {B} in roman myth", "{B} transit visible today", "old {B} fillings at the dentist", "{B} rising in my chart",
      "the {B} program before apollo", "liquid {B} in the lab", "{B} rev for the team ride",
    ],
    productDomains: ["mercury.com"],
  },
  {
    name: "Loom",
    description: "Loom is async video messaging for work: record your screen and camera and share a link.",
    aliases: ["loom.com"],
    excludedTerms: ["weaving loom"],
    product: [
      "sent a {B} instead of a meeting", "recorded a {B} walkthrough of the bug", "{B} video for the onboarding", "{B} transcripts are handy", "{B} for async standups",
      "{B} screen recording froze", "our support team uses {B}", "{B} vs zoom clips", "watch my {B} about the new feature", "{B} ai writes the summary", "{B} link in the pull request",
      "{B} free plan limits", "{B} chrome extension", "a five minute {B} explaining the design",
    ],
    other: [
      "warping the {B} for a scarf", "handmade {B} from oak", "storm clouds {B} over the hills", "deadlines {B} large this week", "a floor {B} in the museum",
      "{B} band bracelets with the kids", "rigid heddle {B} for beginners", "threading the {B} took hours", "tapestry on the {B}", "the mountain {B}s in the fog",
      "a fear that will {B} all week", "{B} weights and shuttles", "grandma's {B} in the attic",
    ],
    productDomains: ["loom.com"],
  },
  {
    name: "Arc",
    description: "Arc is the web browser from The Browser Company: spaces, tabs that tidy themselves, split view.",
    aliases: ["arc.net", "Arc browser"],
    excludedTerms: ["story arc"],
    product: [
      "switched from chrome to {B}", "{B} spaces keep work and home apart", "{B} split view is great", "{B} boosts for custom css", "{B} on windows finally",
      "{B} sidebar tabs", "{B} search is fast", "the browser company shipped {B} max", "{B} is eating my ram", "{B} little arc windows", "set {B} as default browser",
      "{B} profiles for each client", "{B} easel feature", "{B} vs safari battery life",
    ],
    other: [
      "the character {B} in season two", "an electric {B} in the lab", "{B} welding class", "the {B} of the ball", "redemption {B} of the villain", "{B} flash warning",
      "the long {B} of history", "a rainbow {B} over the lake", "{B} length of the circle", "an {B} reactor in the movie", "the {B} of the covenant",
      "triple {B} tattoo", "a slow {B} of the plot", "{B} lamps in the old theatre",
    ],
    productDomains: ["arc.net"],
  },
];

export interface GenerationOptions {
  /** Share of labels flipped (people disagree). */
  noise?: number;
  /** Only the phrasings at even or odd positions: rated and held-out posts can be kept from sharing any. */
  phrasings?: "even" | "odd";
  /** Chance that the brand is capitalized (and 1 minus it that the other sense is); 0.5 takes case away as a cue. */
  brandCapital?: number;
}

/** The brand's posts: `perBrand` of them, about half relevant. */
export const labelledPosts = (brand: BrandSpec, perBrand: number, seed: number, options: GenerationOptions = {}): LabelledPost[] => {
  const noise = options.noise ?? 0.03;
  const capitalChance = options.brandCapital ?? 0.75;
  const keep = <T>(list: readonly T[]) => (options.phrasings ? list.filter((_, i) => i % 2 === (options.phrasings === "even" ? 0 : 1)) : list);
  const product = keep(brand.product);
  const other = keep(brand.other);
  const random = prng(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const sources = ["x", "reddit", "youtube", "linkedin"] as const;
  const fans = Array.from({ length: 12 }, (_, i) => `${brand.name.toLowerCase()}_user${i}`);
  const posts: LabelledPost[] = [];
  for (let i = 0; i < perBrand; i++) {
    const relevant = random() < 0.5;
    const phrases = relevant ? product : other;
    // The brand mostly capitalized, its other sense mostly not: sometimes each the other way.
    const capital = relevant ? random() < capitalChance : random() < 1 - capitalChance;
    const name = capital ? brand.name : brand.name.toLowerCase();
    let sentence = pick(phrases).replace("{B}", name);
    // A second phrase of the same sense now and then, without the name (a longer post).
    if (random() < 0.3) sentence += `, ${pick(phrases).replace("{B}", "it").replace(/\b(it)s\b/u, "it")}`;
    const opener = pick(OPENERS);
    const closer = pick(CLOSERS);
    let text = [opener, sentence, closer].filter(Boolean).join(" ");
    if (random() < 0.15) text += ` https://${relevant ? pick(brand.productDomains) : pick(OFF_DOMAINS)}/${Math.floor(random() * 1e6).toString(36)}`;
    else if (random() < 0.08) text += ` https://${relevant ? pick(OFF_DOMAINS) : pick(OFF_DOMAINS)}/${Math.floor(random() * 1e6).toString(36)}`;
    if (random() < 0.3) text = text.charAt(0).toUpperCase() + text.slice(1);
    const author = random() < 0.3 ? pick(fans) : `user${Math.floor(random() * 5000)}`;
    const flipped = random() < noise;
    posts.push({ brand: brand.name, text, source: pick(sources), author, relevant: flipped ? !relevant : relevant });
  }
  // What the keyword's exclusions drop never becomes a mention.
  return posts.filter((p) => !brand.excludedTerms.some((e) => p.text.toLowerCase().includes(e)));
};
