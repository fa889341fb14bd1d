/**
 * Spelling that a search forgives: British and American variants of one word (colour/color, organise/organize), and
 * the edit distance a typo may be from a word the catalogue uses.
 *
 * Variants are added to the query rather than rewritten in the index: the index stores what sellers wrote (so it can
 * be rebuilt by plain SQL, see the product_search migrations) and a change to these rules applies to the next search
 * without re-indexing anything. Each word of a query matches any of its variants, so "color" finds "colour" and
 * "colour" finds "color". A variant that is not a word ("wize" from "wise") matches nothing and costs nothing.
 */

/** A word matching `pattern` is also spelled each of `forms` (replacement patterns over its groups). */
interface Rule {
  pattern: RegExp;
  forms: string[];
}

// Stems whose -our/-or, -re/-er, -ogue/-og and -ll-/-l- spellings differ. Lists, not open rules: "four" is not "for".
const OUR = "arm|behavi|clam|col|endeav|fav|flav|harb|hon|hum|lab|neighb|od|parl|rig|rum|sav|splend|tum|val|vap|vig";
const RE = "calib|cent|centimet|fib|kilomet|lit|lust|meag|met|millimet|sab|somb|spect|theat";
const OGUE = "anal|catal|dial|epil|monol|prol";
const LL = "cancel|channel|counsel|dial|equal|fuel|funnel|jewel|label|level|marvel|model|panel|pedal|signal|total|travel|tunnel";

const RULES: Rule[] = [
  // colour/color, flavours/flavors, honourable/honorable, discoloured/discolored
  { pattern: new RegExp(`^(dis|multi|un)?(${OUR})ou?r([a-z]*)$`), forms: ["$1$2our$3", "$1$2or$3"] },
  // centre/center, metres/meters
  { pattern: new RegExp(`^(${RE})(?:re|er)(s?)$`), forms: ["$1re$2", "$1er$2"] },
  // centred/centered, centring/centering
  { pattern: new RegExp(`^(${RE})(?:e?)r(ed|ing)$`), forms: ["$1r$2", "$1er$2"] },
  // catalogue/catalog, analogues/analogs
  { pattern: new RegExp(`^(${OGUE})og(?:ue)?(s?)$`), forms: ["$1ogue$2", "$1og$2"] },
  // modelling/modeling, labelled/labeled, travellers/travelers
  { pattern: new RegExp(`^(${LL})l?(ed|ing|er|ers)$`), forms: ["$1l$2", "$1$2"] },
  // grey/gray, greyscale/grayscale
  { pattern: /^gr[ae]y([a-z]*)$/, forms: ["grey$1", "gray$1"] },
  // licence/license, licensed/licenced, sublicensing/sublicencing, defence/defense
  { pattern: /^(un|sub)?(licen|defen|offen|preten)[cs](e|es|ed|ing)$/, forms: ["$1$2c$3", "$1$2s$3"] },
  // analyse/analyze, paralysed/paralyzed, analysers/analyzers
  { pattern: /^([a-z]{2,})y[sz](e|es|ed|er|ers|ing)$/, forms: ["$1ys$2", "$1yz$2"] },
  // -ise/-ize generally: organise/organize, realised/realized, organisation/organization, visualiser/visualizer. At
  // least three letters before it, so rise, size, wise, prize and seize are left alone.
  { pattern: /^([a-z]{3,})i[sz](e|es|ed|er|ers|ing|able|ation|ations)$/, forms: ["$1is$2", "$1iz$2"] },
];

// Whole words that differ in other ways.
const PAIRS: [string, string][] = [
  ["aluminium", "aluminum"],
  ["artefact", "artifact"],
  ["artefacts", "artifacts"],
  ["ageing", "aging"],
  ["cosy", "cozy"],
  ["jewellery", "jewelry"],
  ["judgement", "judgment"],
  ["mould", "mold"],
  ["programme", "program"],
  ["programmes", "programs"],
  ["sceptical", "skeptical"],
];
const PAIRED = new Map(PAIRS.flatMap(([a, b]) => [[a, b] as const, [b, a] as const]));

/** At most this many spellings of one word are searched for. */
const MAX_VARIANTS = 8;

/** The word and its other spellings, the word first. Expects a lower-cased word. */
export function spellingVariants(word: string): string[] {
  const found = [word];
  const paired = PAIRED.get(word);
  if (paired) found.push(paired);
  // Rules compose: "colourised" is also "colorised", "colourized" and "colorized".
  for (const rule of RULES) {
    for (const form of [...found]) {
      if (!rule.pattern.test(form)) continue;
      for (const replacement of rule.forms) {
        const variant = form.replace(rule.pattern, replacement);
        if (!found.includes(variant)) found.push(variant);
      }
    }
  }
  return found.slice(0, MAX_VARIANTS);
}

/** How many edits a query word may be from a catalogue word and still be taken for it: none below 4 letters. */
export function typoAllowance(word: string): number {
  const length = Array.from(word).length;
  return length >= 8 ? 2 : length >= 4 ? 1 : 0;
}

/**
 * Damerau–Levenshtein distance (optimal string alignment: insertions, deletions, substitutions and transpositions of
 * neighbours each count one), or `max + 1` as soon as it is known to exceed `max`.
 */
export function editDistance(a: string, b: string, max = Number.POSITIVE_INFINITY): number {
  const s = Array.from(a);
  const t = Array.from(b);
  if (Math.abs(s.length - t.length) > max) return max + 1;
  let before: number[] = [];
  let previous = Array.from({ length: t.length + 1 }, (_, j) => j);
  for (let i = 1; i <= s.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let d = Math.min(cell(previous, j) + 1, cell(current, j - 1) + 1, cell(previous, j - 1) + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) d = Math.min(d, cell(before, j - 2) + 1);
      current.push(d);
      best = Math.min(best, d);
    }
    if (best > max) return max + 1;
    before = previous;
    previous = current;
  }
  return Math.min(cell(previous, t.length), max + 1);
}

const cell = (row: number[], j: number) => row[j] ?? Number.POSITIVE_INFINITY;
