package retrieval_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/loci-memory/loci/retrieval"
)

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// span formats a span for comparison: start..end, "every" when it recurs
// (its dates then are of year 1).
func span(s retrieval.Span) string {
	if s.Recurs {
		return "every " + s.Start.Format("01-02") + ".." + s.End.Format("01-02")
	}
	return s.Start.Format(time.DateTime) + ".." + s.End.Format(time.DateTime)
}

func TestParseDates(t *testing.T) {
	// A Wednesday afternoon.
	now := time.Date(2024, 3, 13, 15, 4, 5, 0, time.UTC)
	d := func(y int, m time.Month, dd int) string {
		return day(y, m, dd).Format(time.DateTime) + ".." + day(y, m, dd+1).Format(time.DateTime)
	}
	r := func(a, b time.Time) string { return a.Format(time.DateTime) + ".." + b.Format(time.DateTime) }
	tests := []struct {
		query string
		want  []string
	}{
		{"What did Gina find for her store on 1 February, 2023?", []string{d(2023, 2, 1)}},
		{"What painting did she show on October 13, 2023?", []string{d(2023, 10, 13)}},
		{"Which book did Tim finish on 8th December, 2023", []string{d(2023, 12, 8)}},
		{"the forest picture shared on December 1,2023", []string{d(2023, 12, 1)}},
		{"the 3rd of Sept. 2022 meeting", []string{d(2022, 9, 3)}},
		{"notes from 2023-05-03", []string{d(2023, 5, 3)}},
		{"what did Maria start doing in December 2023?", []string{r(day(2023, 12, 1), day(2024, 1, 1))}},
		{"What did John attend in March, 2023", []string{r(day(2023, 3, 1), day(2023, 4, 1))}},
		{"How many times has she gone to the beach in 2023?", []string{r(day(2023, 1, 1), day(2024, 1, 1))}},
		{"what changed since May 2023", []string{r(day(2023, 5, 1), now)}},
		{"anything new since 2023-03-01?", []string{r(day(2023, 3, 1), now)}},
		{"When did Melanie go camping in June?", []string{"every 06-01..07-01"}},
		{"plans for late Aug", []string{"every 08-01..09-01"}},
		{"what happened on 3 May", []string{"every 05-03..05-04"}},
		{"since March", []string{r(day(2024, 3, 1), now)}},
		{"since April", []string{r(day(2023, 4, 1), now)}},
		{"what did we discuss last week", []string{r(day(2024, 3, 6), day(2024, 3, 13))}},
		{"Yesterday's standup", []string{d(2024, 3, 12)}},
		{"today", []string{d(2024, 3, 13)}},
		{"this week", []string{r(day(2024, 3, 11), day(2024, 3, 14))}},
		{"last month's invoices", []string{r(day(2024, 2, 1), day(2024, 3, 1))}},
		{"this month", []string{r(day(2024, 3, 1), day(2024, 4, 1))}},
		{"last year", []string{r(day(2023, 1, 1), day(2024, 1, 1))}},
		{"Where was John between August 11 and August 15 2023?", []string{"every 08-11..08-12", d(2023, 8, 15)}},
		// Weekends: Saturday and Sunday, of this week or the one before.
		{"what did you do last weekend", []string{r(day(2024, 3, 9), day(2024, 3, 11))}},
		{"plans for this weekend", []string{r(day(2024, 3, 16), day(2024, 3, 18))}},
		// Counts of units ago or back: the day; the week around the day;
		// the month around the day; the calendar year. An approximate
		// count widens the period by a unit each side.
		{"What did I buy 10 days ago?", []string{d(2024, 3, 3)}},
		{"a day ago", []string{d(2024, 3, 12)}},
		{"the call two days ago", []string{d(2024, 3, 11)}},
		{"a couple of days ago", []string{r(day(2024, 3, 10), day(2024, 3, 13))}},
		{"a week ago", []string{r(day(2024, 3, 3), day(2024, 3, 10))}},
		{"3 weeks back", []string{r(day(2024, 2, 18), day(2024, 2, 25))}},
		{"a few weeks ago", []string{r(day(2024, 2, 11), day(2024, 3, 3))}},
		{"a month ago", []string{r(day(2024, 1, 29), day(2024, 2, 29))}},
		{"a couple of months back", []string{r(day(2023, 11, 28), day(2024, 2, 29))}},
		{"two years ago", []string{r(day(2022, 1, 1), day(2023, 1, 1))}},
		{"Several years back", []string{r(day(2019, 1, 1), day(2022, 1, 1))}},
		// No valid day: the month of the year is what is left.
		{"on 31 June 2023", []string{r(day(2023, 6, 1), day(2023, 7, 1))}},
		// Not dates: "may" the verb, a count, a month alone without a
		// preposition, an hour, a count of something else, "back" alone.
		{"May I ask what you may do?", nil},
		{"two pizzas ago", nil},
		{"come back in a few days", nil},
		{"I have 30 apples and 12 pears", nil},
		{"March onwards", nil},
		{"meet at 10:30", nil},
		{"", nil},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			var got []string
			for _, s := range retrieval.ParseDates(tt.query, now) {
				got = append(got, span(s))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("ParseDates(%q) = %q, want %q", tt.query, got, tt.want)
			}
		})
	}
}

func TestSpanText(t *testing.T) {
	now := day(2024, 3, 13)
	var got []string
	for _, s := range retrieval.ParseDates("what changed since May 2023, and on 1 February, 2023", now) {
		got = append(got, s.Text)
	}
	if want := []string{"1 February, 2023", "since May 2023"}; !slices.Equal(got, want) {
		t.Errorf("texts = %q, want %q", got, want)
	}
}

func TestCloseness(t *testing.T) {
	week := 7 * 24 * time.Hour
	may2023 := retrieval.Span{Start: day(2023, 5, 1), End: day(2023, 6, 1)}
	december := retrieval.Span{Start: day(1, 12, 1), End: day(2, 1, 1), Recurs: true}
	tests := []struct {
		span  retrieval.Span
		t     time.Time
		grace time.Duration
		want  float64
	}{
		{may2023, day(2023, 5, 1), week, 1},
		{may2023, day(2023, 5, 31).Add(23 * time.Hour), week, 1},
		{may2023, day(2023, 4, 30), week, 0},
		{may2023, day(2023, 6, 1).Add(week / 2), week, 0.5},
		{may2023, day(2023, 6, 8), week, 0},
		{may2023, day(2023, 6, 1), 0, 0},
		{may2023, time.Time{}, week, 0},
		// A recurring span matches any year, its grace running into the
		// next.
		{december, day(2019, 12, 24), week, 1},
		{december, day(2031, 12, 1), week, 1},
		{december, day(2024, 1, 1).Add(week / 4), week, 0.75},
		{december, day(2024, 11, 30), week, 0},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s@%s", span(tt.span), tt.t.Format(time.DateTime)), func(t *testing.T) {
			if got := tt.span.Closeness(tt.t, tt.grace); !near(got, tt.want) {
				t.Errorf("closeness = %v, want %v", got, tt.want)
			}
		})
	}
	if got := retrieval.Closeness([]retrieval.Span{may2023, december}, day(2023, 6, 1).Add(week/2), week); !near(got, 0.5) {
		t.Errorf("best closeness of two spans = %v, want 0.5", got)
	}
	if got := retrieval.Closeness(nil, day(2023, 5, 2), week); got != 0 {
		t.Errorf("closeness to no span = %v, want 0", got)
	}
}

func TestInSpans(t *testing.T) {
	week := 7 * 24 * time.Hour
	spans := []retrieval.Span{{Start: day(2023, 5, 1), End: day(2023, 6, 1)}}
	written := map[string]time.Time{
		"in":     day(2023, 5, 20),
		"after":  day(2023, 6, 1).Add(week / 2), // closeness 0.5
		"before": day(2023, 4, 20),
		"also":   day(2023, 5, 2),
	}
	hits := []retrieval.Hit{{ID: "after", Score: 10}, {ID: "before", Score: 9}, {ID: "in", Score: 4}, {ID: "also", Score: 5}}
	got := retrieval.InSpans(hits, written, spans, week)
	want := []retrieval.Hit{{ID: "after", Score: 5}, {ID: "also", Score: 5}, {ID: "in", Score: 4}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range got {
		if got[i].ID != want[i].ID || !near(got[i].Score, want[i].Score) {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

// TestDateBoost: a result written in a period the query names scores
// 1 + DateBoost times as much, one written in the grace after it less,
// and the explanation says how close each was.
func TestDateBoost(t *testing.T) {
	week := 7 * 24 * time.Hour
	spans := []retrieval.Span{{Start: day(2023, 5, 1), End: day(2023, 6, 1)}}
	lists := map[string][]retrieval.Hit{"lexical": hits("old", "grace", "in")}
	cands := map[string]retrieval.Candidate{
		"old":   {ID: "old", Written: day(2022, 1, 1)},
		"grace": {ID: "grace", Written: day(2023, 6, 1).Add(week / 2)},
		"in":    {ID: "in", Written: day(2023, 5, 9)},
	}
	p := retrieval.Params{K: 1, Spans: spans, DateBoost: 1, DateGrace: week}
	got := retrieval.Rank(lists, cands, p)
	// Fused: old 1/2, grace 1/3, in 1/4 (over norm 1/2): 1, 2/3, 1/2;
	// boosted: 1, 2/3 × 1.5, 1/2 × 2.
	want := map[string][2]float64{"old": {1, 0}, "grace": {1, 0.5}, "in": {1, 1}}
	for _, r := range got {
		if w := want[r.ID]; !near(r.Score, w[0]) || !near(r.Explain.Date, w[1]) || !near(r.Explain.Rank, r.Score) {
			t.Errorf("%s: score %v date %v, want %v", r.ID, r.Score, r.Explain.Date, w)
		}
	}
	p.DateBoost = 0
	for _, r := range retrieval.Rank(lists, cands, p) {
		if r.Explain.Date != 0 {
			t.Errorf("DateBoost 0: %s has date %v", r.ID, r.Explain.Date)
		}
	}
	// All score 1: ties break on id.
	if w := []string{"grace", "in", "old"}; !slices.Equal(ids(got), w) {
		t.Errorf("order = %v, want %v", ids(got), w)
	}
}
