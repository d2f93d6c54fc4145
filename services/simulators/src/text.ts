// Generated post text: a handful of templates with the searched term in them, some positive, some
// negative, some neutral, so the mention service's lexicon sentiment has something to do.

const TEMPLATES: ReadonlyArray<readonly [string, string]> = [
  ["First impressions of {t}", "Just tried {t} and honestly it is great, the setup took five minutes."],
  ["Anyone else having trouble with {t}?", "Is {t} down for anyone else? This is terrible, nothing loads since this morning."],
  ["{t} release notes", "The new {t} release notes are out: faster sync, a new dashboard and fewer settings."],
  ["Comparing {t} with the alternatives", "We compared {t} with two alternatives for our team. Mixed results, details inside."],
  ["Why I switched to {t}", "Switched our whole workflow to {t} last month. Love how simple it is."],
  ["{t} pricing question", "Does anyone know whether {t} has a plan for small nonprofits? The pricing page is confusing."],
  ["Bug report: {t}", "Found a bug in {t}: exporting a report fails with an error every time. Disappointed."],
  ["{t} meetup this week", "Heading to the {t} meetup on Thursday, who else is going?"],
];

export const generatedText = (term: string, hash: number): { title: string; text: string } => {
  const [title, text] = TEMPLATES[hash % TEMPLATES.length] ?? TEMPLATES[0]!;
  return { title: title.replaceAll("{t}", term), text: text.replaceAll("{t}", term) };
};
