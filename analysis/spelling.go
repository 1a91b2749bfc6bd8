package analysis

import (
	"strings"

	"github.com/kljensen/snowball/english"
)

// Fold returns the American spelling of a lower-cased British word, or the
// word as it is: "favourite" is "favorite", "colours" "colors",
// "organised" "organized", "travelling" "traveling", "centre" "center",
// "catalogue" "catalog", "defence" "defense", "grey" "gray". Stemming
// alone leaves the two apart ("favourit", "favorit"), so one would never
// find the other. Terms folds every word before it stems it, for what is
// indexed and what is queried alike.
//
// The forms are listed (roots with the endings they take, and single
// words), never guessed from an ending: "-ise" is "-ize" only for the
// roots listed ("realise", not "promise" or "exercise"), and "-our" is
// "-or" only after them ("colour", not "hour" or "four").
func Fold(w string) string {
	if len(w) < 3 {
		return w
	}
	if a, ok := spellings[w]; ok {
		return a
	}
	// -our, and what follows it: colourful, favourites, neighbourhood.
	if i := strings.Index(w, "our"); i > 0 && ourRoots[w[:i]] {
		return w[:i] + "or" + w[i+3:]
	}
	return w
}

// FoldStem maps a term stemmed before spellings were folded (a British
// word's own stem, as SearchText wrote it before) to the term of the same
// word now, so that text analysed then still matches queries analysed now
// without re-analysing it: "favourit" is "favorit", "colour" "color",
// "organis" "organ". Any other term is returned as it is, and so is what
// it returns. Stem applies it too, so that a word whose stem is one of
// these (the noun "emphasis", stemmed as "emphasise" was) is analysed
// alike in stored text and in queries.
func FoldStem(term string) string {
	if a, ok := stemFolds[term]; ok {
		return a
	}
	return term
}

// ourRoots are the words' beginnings that "-our" follows in British
// spelling and "-or" in American.
var ourRoots = set("arb", "ard", "arm", "behavi", "cand", "clam", "col", "demean", "discol", "dishon", "disfav",
	"endeav", "fav", "ferv", "flav", "glam", "harb", "hon", "hum", "lab", "misbehavi", "multicol", "neighb",
	"od", "parl", "rig", "rum", "sav", "savi", "splend", "tum", "unfav", "val", "vap", "vig", "watercol")

// izeRoots take "-ise" (and "-ised", "-ising", "-isation", ...) in British
// spelling, "-ize" in American.
var izeRoots = []string{"agon", "antagon", "apolog", "author", "bapt", "capital", "categor", "central",
	"character", "civil", "colon", "commercial", "critic", "custom", "demon", "digit", "dramat", "econom",
	"emphas", "empath", "energ", "equal", "familiar", "fantas", "fertil", "final", "general", "global", "harmon",
	"hospital", "human", "hypnot", "ideal", "idol", "immun", "individual", "industrial", "item", "jeopard",
	"legal", "legitim", "liberal", "local", "magnet", "material", "maxim", "mechan", "memor", "mesmer",
	"minim", "mobil", "modern", "monopol", "moral", "natural", "neutral", "normal", "optim", "organ",
	"ostrac", "patron", "personal", "plagiar", "polar", "popular", "pressur", "priorit", "public", "rational",
	"real", "recogn", "revolution", "romantic", "sanit", "scrutin", "sensit", "social", "special", "stabil",
	"standard", "steril", "stigmat", "subsid", "summar", "symbol", "sympath", "synchron", "tantal", "terror",
	"theor", "trivial", "union", "urban", "util", "vandal", "vapor", "victim", "visual", "western"}

var izeEndings = []string{"ise", "ised", "ises", "ising", "isation", "isations", "iser", "isers"}

// llRoots double their last "l" before "-ed", "-ing", "-er" in British
// spelling: travelled, travelling, traveller.
var llRoots = []string{"barrel", "bevel", "cancel", "channel", "chisel", "counsel", "dial", "duel", "enamel",
	"equal", "fuel", "funnel", "grovel", "initial", "jewel", "kennel", "label", "level", "libel", "marvel",
	"model", "panel", "pedal", "pencil", "quarrel", "revel", "rival", "shovel", "signal", "snorkel", "spiral",
	"swivel", "total", "towel", "travel", "tunnel", "unravel"}

// reRoots end in "-re" in British spelling, "-er" in American.
var reRoots = []string{"cent", "centimet", "fib", "kilomet", "lit", "lust", "meag", "met",
	"millimet", "sab", "scept", "somb", "spect", "theat"}

// ogueWords end in "-ogue" in British spelling, "-og" in American.
var ogueWords = []string{"analogue", "catalogue", "dialogue", "epilogue", "monologue", "prologue", "travelogue"}

// words are the other single words that differ.
var words = map[string]string{
	"aeroplane": "airplane", "aeroplanes": "airplanes", "ageing": "aging", "aluminium": "aluminum",
	"anaemia": "anemia", "anaesthesia": "anesthesia", "analyse": "analyze", "analysed": "analyzed", "analysing": "analyzing",
	"burnt": "burned", "centrepiece": "centerpiece", "cheque": "check", "cheques": "checks",
	"cosy": "cozy", "cosier": "cozier", "counsellor": "counselor", "counsellors": "counselors",
	"defence": "defense", "defences": "defenses", "doughnut": "donut", "doughnuts": "donuts", "dreamt": "dreamed",
	"encyclopaedia": "encyclopedia", "enrol": "enroll", "enrolment": "enrollment", "enrols": "enrolls",
	"fulfil": "fulfill", "fulfilment": "fulfillment", "fulfils": "fulfills", "grey": "gray", "greyish": "grayish",
	"greys": "grays", "instalment": "installment", "jeweller": "jeweler", "jewellers": "jewelers", "jewellery": "jewelry",
	"judgement": "judgment", "judgements": "judgments", "acknowledgement": "acknowledgment", "learnt": "learned",
	"licence": "license", "licences": "licenses", "manoeuvre": "maneuver", "manoeuvres": "maneuvers",
	"marvellous": "marvelous", "mould": "mold", "mouldy": "moldy", "moustache": "mustache", "mum": "mom", "mums": "moms",
	"offence": "offense", "offences": "offenses", "orthopaedic": "orthopedic", "paediatric": "pediatric",
	"paediatrician": "pediatrician", "paralyse": "paralyze", "paralysed": "paralyzed", "plough": "plow",
	"practise": "practice", "practised": "practiced", "practises": "practices", "practising": "practicing",
	"pretence": "pretense", "programme": "program", "programmes": "programs", "pyjamas": "pajamas",
	"sceptic": "skeptic", "sceptical": "skeptical", "scepticism": "skepticism", "skilful": "skillful",
	"spoilt": "spoiled", "storey": "story", "storeys": "stories", "tyre": "tire", "tyres": "tires",
	"wilful": "willful", "woollen": "woolen", "yoghurt": "yogurt",
}

// spellings maps every listed British word to its American spelling, but
// for the -our forms (Fold checks their roots).
var spellings = func() map[string]string {
	m := make(map[string]string, 2048)
	for b, a := range words {
		m[b] = a
	}
	for _, r := range izeRoots {
		for _, e := range izeEndings {
			m[r+e] = r + "iz" + e[2:]
		}
	}
	for _, r := range llRoots {
		for _, e := range []string{"ed", "ing", "er", "ers"} {
			m[r+"l"+e] = r + e
		}
	}
	for _, r := range reRoots {
		for b, a := range map[string]string{"re": "er", "res": "ers", "red": "ered", "ring": "ering"} {
			m[r+b] = r + a
		}
	}
	for _, w := range ogueWords {
		r := strings.TrimSuffix(w, "ue")
		for b, a := range map[string]string{"ue": "", "ues": "s", "ued": "ed", "uing": "ing"} {
			m[r+b] = r + a
		}
	}
	return m
}()

// ourEndings are the endings the -our roots are listed with, so that
// FoldStem knows their old stems.
var ourEndings = []string{"", "s", "ed", "ing", "ite", "ites", "ful", "fully", "able", "ably", "less", "y",
	"er", "ers", "hood", "hoods", "ly", "ist", "ists", "ism", "ous"}

// stemFolds maps the stem each listed British word had before spellings
// were folded to its stem now. A stem two British words share, which
// would go two ways, or one that an American word has, is left out.
var stemFolds = func() map[string]string {
	m := map[string]string{}
	bad := map[string]bool{}
	add := func(b, a string) {
		old, now := english.Stem(b, false), english.Stem(a, false)
		if old == now || bad[old] {
			return
		}
		if prev, ok := m[old]; ok && prev != now {
			delete(m, old)
			bad[old] = true
			return
		}
		m[old] = now
	}
	for b, a := range spellings {
		add(b, a)
	}
	for r := range ourRoots {
		for _, e := range ourEndings {
			add(r+"our"+e, r+"or"+e)
		}
	}
	// An old stem that is also an American word's stem stays as it is.
	for _, a := range spellings {
		delete(m, english.Stem(a, false))
	}
	for r := range ourRoots {
		for _, e := range ourEndings {
			delete(m, english.Stem(r+"or"+e, false))
		}
	}
	return m
}()

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}
