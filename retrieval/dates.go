package retrieval

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Span is a period a query names, in UTC: [Start, End). A span of a
// month or a day named without a year recurs: it is that month (or day)
// of every year, and Start and End are of year 1.
type Span struct {
	Start, End time.Time
	Recurs     bool
	// Text is what the query said.
	Text string
}

// Closeness reports how close t is to the span: 1 inside it, falling
// linearly to 0 over grace after its end (what is written shortly after a
// period often tells of it), 0 before it or later.
func (s Span) Closeness(t time.Time, grace time.Duration) float64 {
	if t.IsZero() {
		return 0
	}
	t = t.UTC()
	if !s.Recurs {
		return closeness(s.Start, s.End, t, grace)
	}
	var best float64
	// The span in t's year, and in the year before (its grace may run
	// into t's year).
	for _, y := range []int{t.Year(), t.Year() - 1} {
		d := y - s.Start.Year()
		best = max(best, closeness(s.Start.AddDate(d, 0, 0), s.End.AddDate(d, 0, 0), t, grace))
	}
	return best
}

func closeness(start, end, t time.Time, grace time.Duration) float64 {
	switch {
	case t.Before(start):
		return 0
	case t.Before(end):
		return 1
	case grace > 0 && t.Before(end.Add(grace)):
		return 1 - float64(t.Sub(end))/float64(grace)
	}
	return 0
}

// Closeness is the best closeness of t to any of spans (0 when none).
func Closeness(spans []Span, t time.Time, grace time.Duration) float64 {
	var best float64
	for _, s := range spans {
		best = max(best, s.Closeness(t, grace))
	}
	return best
}

const monthRE = `(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?`

var (
	isoDayRE   = regexp.MustCompile(`\b(\d{4})-(\d{1,2})-(\d{1,2})\b`)
	dayMonthRE = regexp.MustCompile(`\b(\d{1,2})(?:st|nd|rd|th)?(?:\s+of)?\s+` + monthRE + `(?:,?\s*(\d{4})\b)?`)
	monthDayRE = regexp.MustCompile(`\b` + monthRE + `\s+(\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s*(\d{4})\b)?`)
	monthYrRE  = regexp.MustCompile(`\b` + monthRE + `,?\s+(?:of\s+)?(\d{4})\b`)
	monthRE1   = regexp.MustCompile(`\b(in|during|since|throughout|early|mid|late|of)\s+(?:the\s+month\s+of\s+)?` + monthRE + `\b`)
	yearRE     = regexp.MustCompile(`\b((?:19|20)\d\d)\b`)
	relRE      = regexp.MustCompile(`\b(yesterday|today|(?:last|this|past)\s+(?:weekend|week|month|year))\b`)
	agoRE      = regexp.MustCompile(`\b(\d{1,3}|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|(?:a\s+)?couple(?:\s+of)?|(?:a\s+)?few|several)\s+(day|week|month|year)s?\s+(?:ago|back)\b`)
	sinceRE    = regexp.MustCompile(`\bsince\s+(?:the\s+)?$`)
)

var months = map[string]time.Month{
	"jan": time.January, "feb": time.February, "mar": time.March, "apr": time.April, "may": time.May,
	"jun": time.June, "jul": time.July, "aug": time.August, "sep": time.September, "oct": time.October,
	"nov": time.November, "dec": time.December,
}

// monthOf returns the month a lower-case month name or abbreviation
// names, or 0.
func monthOf(s string) time.Month {
	s = strings.TrimSuffix(s, ".")
	if len(s) > 3 {
		s = s[:3]
	}
	return months[s]
}

// asciiLower lower-cases the ASCII letters of s, keeping its length.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// hasMonth reports whether lower holds a word that names a month.
func hasMonth(lower string) bool {
	for i := 0; i < len(lower); {
		if lower[i] < 'a' || lower[i] > 'z' {
			i++
			continue
		}
		j := i
		for j < len(lower) && lower[j] >= 'a' && lower[j] <= 'z' {
			j++
		}
		if w := lower[i:j]; len(w) >= 3 && months[w[:3]] != 0 && (len(w) == 3 || monthNames[w]) {
			return true
		}
		i = j
	}
	return false
}

var monthNames = map[string]bool{
	"january": true, "february": true, "march": true, "april": true, "june": true, "july": true, "august": true,
	"september": true, "sept": true, "october": true, "november": true, "december": true,
}

// ParseDates returns the periods a query names, relative to now where it
// says so: a day ("1 February, 2023", "May 3rd 2023", "2023-05-03"), a
// month of a year ("May 2023"), a year ("in 2023"), a month alone after
// in, during, since, throughout, early, mid, late or of ("in May": May of
// any year), a day without a year ("on 3 May": that day of any year),
// yesterday, today, last or this week, weekend, month or year (the seven
// days before today, the weekend before this week, the calendar month or
// year before this one; the current ones), and a count of days, weeks,
// months or years ago or back ("10 days ago", "a week ago", "a couple of
// months back": see agoSpan), in UTC. "since" extends a period to now.
// Each part of the query is read once, the most precise reading first;
// what is not a valid date is ignored.
func ParseDates(query string, now time.Time) []Span {
	// The patterns read the query lower-cased (ASCII only, so offsets
	// stay those of the query), and only those that can match run.
	lower := asciiLower(query)
	digits := strings.ContainsAny(query, "0123456789")
	month := hasMonth(lower)
	relative := strings.Contains(lower, "yesterday") || strings.Contains(lower, "today") ||
		strings.Contains(lower, "last") || strings.Contains(lower, "this") || strings.Contains(lower, "past")
	ago := strings.Contains(lower, "ago") || strings.Contains(lower, "back")
	relative = relative || ago
	if !digits && !month && !relative {
		return nil
	}
	now = now.UTC()
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	r := &dateReader{query: query, lower: lower, now: now, taken: make([]bool, len(query))}
	r.each(digits, isoDayRE, func(m []string) (Span, bool) {
		mo := atoi(m[2])
		if mo < 1 || mo > 12 {
			return Span{}, false
		}
		return daySpan(atoi(m[1]), time.Month(mo), atoi(m[3]))
	})
	r.each(digits && month, dayMonthRE, func(m []string) (Span, bool) { return daySpan(atoi(m[3]), monthOf(m[2]), atoi(m[1])) })
	r.each(digits && month, monthDayRE, func(m []string) (Span, bool) {
		// "May 2023" is a month, not the 20th of May: a day has at most
		// two digits, and the year follows it.
		return daySpan(atoi(m[3]), monthOf(m[1]), atoi(m[2]))
	})
	r.each(digits && month, monthYrRE, func(m []string) (Span, bool) {
		start := time.Date(atoi(m[2]), monthOf(m[1]), 1, 0, 0, 0, 0, time.UTC)
		return Span{Start: start, End: start.AddDate(0, 1, 0)}, monthOf(m[1]) != 0
	})
	r.each(month, monthRE1, func(m []string) (Span, bool) { return monthAlone(m[1], m[2], now) })
	r.each(digits, yearRE, func(m []string) (Span, bool) {
		start := time.Date(atoi(m[1]), 1, 1, 0, 0, 0, 0, time.UTC)
		return Span{Start: start, End: start.AddDate(1, 0, 0)}, true
	})
	r.each(ago, agoRE, func(m []string) (Span, bool) { return agoSpan(m[1], m[2], today, now) })
	r.each(relative, relRE, func(m []string) (Span, bool) {
		return relativeSpan(strings.Fields(strings.ToLower(m[1])), today, now), true
	})
	sort.SliceStable(r.out, func(i, j int) bool { return r.out[i].Start.Before(r.out[j].Start) })
	return r.out
}

// dateReader reads the periods of one query, each part of it once: taken
// marks the bytes already read as a date.
type dateReader struct {
	query, lower string // the query, and it lower-cased (ASCII only)
	now          time.Time
	taken        []bool
	out          []Span
}

// free reports whether no byte of loc (start, end) is read yet.
func (r *dateReader) free(loc []int) bool {
	for i := loc[0]; i < loc[1]; i++ {
		if r.taken[i] {
			return false
		}
	}
	return true
}

// add keeps s, read at loc (start, end), extended to now after "since".
func (r *dateReader) add(loc []int, s Span) {
	for i := loc[0]; i < loc[1]; i++ {
		r.taken[i] = true
	}
	s.Text = r.query[loc[0]:loc[1]]
	if !s.Recurs && sinceRE.MatchString(r.lower[:loc[0]]) && s.End.Before(r.now) {
		s.End = r.now
		s.Text = "since " + s.Text
	}
	r.out = append(r.out, s)
}

// each reads, when run, every match of re in parts of the query not read
// yet with fn, which returns the period a match names (ok false: none).
func (r *dateReader) each(run bool, re *regexp.Regexp, fn func(m []string) (Span, bool)) {
	if !run {
		return
	}
	for _, loc := range re.FindAllStringSubmatchIndex(r.lower, -1) {
		if !r.free(loc[:2]) {
			continue
		}
		m := make([]string, len(loc)/2)
		for i := range m {
			if loc[2*i] >= 0 {
				m[i] = r.lower[loc[2*i]:loc[2*i+1]]
			}
		}
		if s, ok := fn(m); ok {
			r.add(loc[:2], s)
		}
	}
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// daySpan is day d of month m of year y (0: of any year), if it is one.
func daySpan(y int, m time.Month, d int) (Span, bool) {
	if m == 0 || d < 1 || d > 31 {
		return Span{}, false
	}
	recurs := y == 0
	if recurs {
		y = 1
	}
	start := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	if start.Month() != m { // 31 June
		return Span{}, false
	}
	return Span{Start: start, End: start.AddDate(0, 0, 1), Recurs: recurs}, true
}

// monthAlone is the month named without a year after word (in, since,
// …): that month of any year, or since its last occurrence before now.
func monthAlone(word, name string, now time.Time) (Span, bool) {
	mo := monthOf(name)
	if mo == 0 {
		return Span{}, false
	}
	if word == "since" {
		// Since the last such month.
		start := time.Date(now.Year(), mo, 1, 0, 0, 0, 0, time.UTC)
		if start.After(now) {
			start = start.AddDate(-1, 0, 0)
		}
		return Span{Start: start, End: now}, true
	}
	start := time.Date(1, mo, 1, 0, 0, 0, 0, time.UTC)
	return Span{Start: start, End: start.AddDate(0, 1, 0), Recurs: true}, true
}

// relativeSpan is the period the words f name relative to today and now:
// yesterday, today, this or last week, month or year.
func relativeSpan(f []string, today, now time.Time) Span {
	switch {
	case f[0] == "yesterday":
		return Span{Start: today.AddDate(0, 0, -1), End: today}
	case f[0] == "today":
		return Span{Start: today, End: today.AddDate(0, 0, 1)}
	case f[1] == "weekend":
		// The Saturday and Sunday of this week (weeks start on Monday),
		// or of the week before.
		monday := today.AddDate(0, 0, -int(today.Weekday()+6)%7)
		if f[0] == "this" {
			return Span{Start: monday.AddDate(0, 0, 5), End: monday.AddDate(0, 0, 7)}
		}
		return Span{Start: monday.AddDate(0, 0, -2), End: monday}
	case f[1] == "week" && f[0] == "this":
		return Span{Start: today.AddDate(0, 0, -int(today.Weekday()+6)%7), End: today.AddDate(0, 0, 1)}
	case f[1] == "week":
		return Span{Start: today.AddDate(0, 0, -7), End: today}
	case f[1] == "month":
		this := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
		if f[0] == "this" {
			return Span{Start: this, End: this.AddDate(0, 1, 0)}
		}
		return Span{Start: this.AddDate(0, -1, 0), End: this}
	default:
		this := time.Date(now.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
		if f[0] == "this" {
			return Span{Start: this, End: this.AddDate(1, 0, 0)}
		}
		return Span{Start: this.AddDate(-1, 0, 0), End: this}
	}
}

// counts are the numbers a query may say in words before a unit of time,
// approximate ones ("a couple of", "a few", "several") marked.
var counts = map[string]struct {
	n      int
	approx bool
}{
	"a": {1, false}, "an": {1, false}, "one": {1, false}, "two": {2, false}, "three": {3, false}, "four": {4, false},
	"five": {5, false}, "six": {6, false}, "seven": {7, false}, "eight": {8, false}, "nine": {9, false},
	"ten": {10, false}, "eleven": {11, false}, "twelve": {12, false},
	"couple": {2, true}, "few": {3, true}, "several": {4, true},
}

// agoSpan is the period "COUNT UNITs ago" (or "back") names relative to
// today and now: that day; the seven days around the day that many weeks
// ago; the month around the day that many months ago; that calendar
// year. An approximate count ("a couple of days ago", "a few weeks back")
// widens the period by a unit on each side.
func agoSpan(count, unit string, today, now time.Time) (Span, bool) {
	n, err := strconv.Atoi(count)
	approx := false
	if err != nil {
		f := strings.Fields(count)
		c, ok := counts[f[len(f)-1]]
		if len(f) > 1 && f[len(f)-1] == "of" {
			c, ok = counts[f[len(f)-2]]
		}
		if !ok {
			return Span{}, false
		}
		n, approx = c.n, c.approx
	}
	if n <= 0 {
		return Span{}, false
	}
	w := 0 // the widening, in units
	if approx {
		w = 1
	}
	switch unit {
	case "day":
		d := today.AddDate(0, 0, -n)
		return Span{Start: d.AddDate(0, 0, -w), End: d.AddDate(0, 0, 1+w)}, true
	case "week":
		d := today.AddDate(0, 0, -7*n)
		return Span{Start: d.AddDate(0, 0, -3-7*w), End: d.AddDate(0, 0, 4+7*w)}, true
	case "month":
		d := today.AddDate(0, -n, 0)
		return Span{Start: d.AddDate(0, -w, -15), End: d.AddDate(0, w, 16)}, true
	default:
		y := time.Date(now.Year()-n, 1, 1, 0, 0, 0, 0, time.UTC)
		return Span{Start: y.AddDate(-w, 0, 0), End: y.AddDate(1+w, 0, 0)}, true
	}
}

// InSpans is the date signal's list: of hits (a signal's candidates
// written in or shortly after the periods a query names), those whose
// written time is close to spans, each score multiplied by its closeness,
// best first (ties on id).
func InSpans(hits []Hit, written map[string]time.Time, spans []Span, grace time.Duration) []Hit {
	var out []Hit
	for _, h := range hits {
		if c := Closeness(spans, written[h.ID], grace); c > 0 {
			out = append(out, Hit{ID: h.ID, Score: h.Score * c})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].ID < out[j].ID
	})
	return out
}
