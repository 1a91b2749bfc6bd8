package httpapi

import (
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// maxLimiters bounds how many clients the rate limiter remembers; past it
// the table starts afresh (a burst's worth of leniency, never a leak).
const maxLimiters = 10000

// rateLimiter gives each client (key id, or IP when authentication is off)
// a token bucket.
type rateLimiter struct {
	mu      sync.Mutex
	every   rate.Limit
	burst   int
	clients map[string]*rate.Limiter
}

func newRateLimiter(perSecond float64, burst int) *rateLimiter {
	if perSecond <= 0 {
		return nil
	}
	return &rateLimiter{every: rate.Limit(perSecond), burst: max(burst, 1), clients: map[string]*rate.Limiter{}}
}

// allow takes a token for who; when there is none it returns false and
// the whole seconds until there will be.
func (l *rateLimiter) allow(who string) (int, bool) {
	l.mu.Lock()
	lim, ok := l.clients[who]
	if !ok {
		if len(l.clients) >= maxLimiters {
			l.clients = map[string]*rate.Limiter{}
		}
		lim = rate.NewLimiter(l.every, l.burst)
		l.clients[who] = lim
	}
	l.mu.Unlock()
	now := time.Now()
	res := lim.ReserveN(now, 1)
	if d := res.DelayFrom(now); d > 0 {
		res.CancelAt(now)
		return max(1, int(math.Ceil(d.Seconds()))), false
	}
	return 0, true
}
