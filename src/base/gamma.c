/* The special functions of the gamma family and their neighbours, in double:
 * frexp's parts, the regularized incomplete gamma functions igamma and
 * igammac, polygamma, the Hurwitz zeta function, erfcx, ndtri (the inverse
 * of the standard normal distribution function) and Airy's Ai. val_op
 * (scalar.c) rounds their results to the dtype. Their values at the edges
 * (NaN, infinities, poles, the boundary of each domain) are PyTorch's on the
 * CPU, checked by tests/test_scalar.py; docs/language.md lists them. */
#define _DEFAULT_SOURCE /* lgamma_r: lgamma writes the global signgam, and threads call this */
#include <math.h>

#include "base.h"

#define EPS 1.1102230246251565e-16 /* 2^-53 */
#define MAXITER 100000              /* the incomplete gamma's series and continued fraction */

static double lgam(double x)
{
	int sign;
	return lgamma_r(x, &sign);
}

/* lgamma(1 + a), whose digits 1 + a loses for small a: there its Taylor
 * series -gamma a + sum_(k>=2) (-1)^k zeta(k) a^k / k */
static double lgam1p(double a)
{
	static const double C[] = {
		0.8224670334241132, -0.40068563438653143, 0.27058080842778454, -0.20738555102867398, 0.1695571769974082,
		-0.1440498967688461, 0.12550966952474304, -0.11133426586956469, 0.1000994575127818, -0.09095401714582904,
		0.083353840546109, -0.0769325164113522, 0.07143294629536133, -0.06666870588242046, 0.06250095514121304,
		-0.058823978658684585, 0.055555767627403614, -0.05263167937961666, 0.05000004769810169,
		-0.047619070330142226, 0.04545455629320467, -0.04347826605304026, 0.04166666915034121,
		-0.04000000119214014}; /* (-1)^k zeta(k) / k, k = 2 .. 25 */
	if (fabs(a) >= 0.25)
		return lgam(1 + a);
	double p = 0;
	for (int k = 23; k >= 0; k--)
		p = p * a + C[k];
	return a * (-0.5772156649015329 + a * p);
}

double sf_frexp_mantissa(double x)
{
	int e;
	return frexp(x, &e);
}

int sf_frexp_exponent(double x)
{
	int e = 0;
	frexp(x, &e);
	return isfinite(x) ? e : 0; /* PyTorch's 0 for inf and NaN */
}

/* ---- the incomplete gamma functions ----
 * P(a, x) = igamma(a, x) = gamma(a, x) / Gamma(a) and Q = igammac = 1 - P,
 * by the power series of P (DLMF 8.11.4) or of Q for small x (DLMF 8.7.3)
 * and the continued fraction of Q (DLMF 8.9.2), each where it converges fast
 * and loses no digits to 1 - P (the regions SciPy's and PyTorch's gammainc
 * choose between them). */

/* log1p(s) - s, without log1p's rounding where s is small */
static double log1pmx(double s)
{
	if (fabs(s) > 1e-2)
		return log1p(s) - s;
	double sum = 0, p = s;
	for (int k = 2; k < 12; k++) {
		p *= -s;
		sum += p / k;
	}
	return sum;
}

/* x^a e^-x / Gamma(a), the factor of P's series and Q's continued fraction.
 * For a >= 10 through Stirling's formula Gamma(a) = sqrt(2 pi / a) (a / e)^a
 * e^mu(a), mu the series of its correction (Bernoulli numbers): the factor is
 * then sqrt(a / (2 pi)) exp(a (log1p(s) - s) - mu(a)), s = (x - a) / a, which
 * keeps its digits where x is near a (the direct exponent a log x - x -
 * lgamma(a) loses them to cancellation). */
static double igam_factor(double a, double x)
{
	if (a < 10)
		return exp(a * log(x) - x - lgam(a));
	static const double B[] = {1.0 / 12, -1.0 / 360, 1.0 / 1260, -1.0 / 1680, 1.0 / 1188, -691.0 / 360360, 1.0 / 156,
	                           -3617.0 / 122400};
	double ia2 = 1 / (a * a), mu = 0;
	for (int k = 7; k >= 0; k--)
		mu = mu * ia2 + B[k];
	mu /= a;
	double s = (x - a) / a, l = fabs(s) < 0.5 ? log1pmx(s) : log(x / a) - s;
	return sqrt(a / (2 * M_PI)) * exp(a * l - mu);
}

/* P(a, x) = factor / a * sum_k x^k / ((a + 1) ... (a + k)); below 10,
 * factor / a = x^a e^-x / Gamma(a + 1) (a subnormal factor would leave a
 * few bits to divide by a small a) */
static double igam_series(double a, double x)
{
	double f = a < 10 ? exp(a * log(x) - x - lgam1p(a)) : igam_factor(a, x) / a;
	if (f == 0)
		return 0;
	double r = a, term = 1, sum = 1;
	for (int i = 0; i < MAXITER && term > EPS * sum; i++) {
		r += 1;
		term *= x / r;
		sum += term;
	}
	return sum * f;
}

/* Q(a, x) = 1 - x^a / Gamma(a + 1) - x^a / Gamma(a) sum_{n>=1} (-x)^n / (n! (a + n)),
 * for x <= 1.1, where 1 - P would cancel */
static double igamc_series(double a, double x)
{
	double fac = 1, sum = 0, term;
	for (int n = 1; n < MAXITER; n++) {
		fac *= -x / n;
		term = fac / (a + n);
		sum += term;
		if (fabs(term) <= EPS * fabs(sum))
			break;
	}
	double lx = log(x);
	return -expm1(a * lx - lgam1p(a)) - exp(a * lx - lgam(a)) * sum;
}

/* Q(a, x) = factor / (x + 1 - a - 1 (1 - a) / (x + 3 - a - 2 (2 - a) / (x + 5 - a - ...))),
 * by the modified Lentz method, for x > 1.1 and x >= a */
static double igamc_fraction(double a, double x)
{
	double f = igam_factor(a, x);
	if (f == 0)
		return 0;
	const double tiny = 1e-300;
	double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
	for (int i = 1; i < MAXITER; i++) {
		double an = -i * (i - a);
		b += 2;
		d = an * d + b;
		c = b + an / c;
		d = 1 / (fabs(d) < tiny ? tiny : d);
		c = fabs(c) < tiny ? tiny : c;
		h *= d * c;
		if (fabs(d * c - 1) <= EPS)
			break;
	}
	return h * f;
}

/* Q(a, x) for a > 1e8 (upper) or P(a, x), by the uniform asymptotic
 * expansion (Temme; DLMF 8.12.3, 8.12.4) to its first term:
 * erfc(+-eta sqrt(a / 2)) / 2 +- e^(-a eta^2 / 2) / sqrt(2 pi a) C0(eta), with
 * eta^2 / 2 = s - log1p(s), s = x / a - 1, and C0(eta) = 1 / s - 1 / eta (its
 * Taylor series near 0). The next term is below C1 / a < 2e-11 of that
 * second one. */
static double igam_uniform(double a, double x, bool upper)
{
	double s = (x - a) / a, eta = sqrt(-2 * log1pmx(s));
	eta = s < 0 ? -eta : eta;
	double c0 = 1 / s - 1 / eta;
	if (fabs(eta) < 1e-3)
		c0 = -1.0 / 3 + eta * (1.0 / 12 + eta * (-1.4814814814814815e-2 + eta * 1.1574074074074074e-3));
	double r = exp(-a * eta * eta / 2) / sqrt(2 * M_PI * a) * c0;
	return upper ? erfc(eta * sqrt(a / 2)) / 2 + r : erfc(-eta * sqrt(a / 2)) / 2 - r;
}

/* The edges both share (SciPy's): NaN outside a, x >= 0 and at a = x = 0;
 * igamma(0, x > 0) = 1; x = 0 is the lower bound; an infinite a leaves
 * nothing below a finite x, an infinite x everything. These come before NaN
 * is looked at: igamma(NaN, 0) = 0, as PyTorch's. Sets *done. */
static double igam_edges(double a, double x, bool upper, bool *done)
{
	*done = true;
	double lo = upper ? 1 : 0, hi = upper ? 0 : 1;
	if (x < 0 || a < 0)
		return NAN;
	if (a == 0)
		return x > 0 ? hi : NAN;
	if (x == 0)
		return lo;
	if (isinf(a))
		return isinf(x) ? NAN : lo;
	if (isinf(x))
		return hi;
	if (isnan(a) || isnan(x))
		return NAN;
	*done = false;
	return 0;
}

double sf_igammac(double a, double x)
{
	bool done;
	double e = igam_edges(a, x, true, &done);
	if (done)
		return e;
	if (a > 1e8)
		return igam_uniform(a, x, true);
	if (x > 1.1)
		return x < a ? 1 - igam_series(a, x) : igamc_fraction(a, x);
	bool p_small = x <= 0.5 ? -0.4 / log(x) < a : x * 1.1 < a;
	return p_small ? 1 - igam_series(a, x) : igamc_series(a, x);
}

double sf_igamma(double a, double x)
{
	bool done;
	double e = igam_edges(a, x, false, &done);
	if (done)
		return e;
	if (a > 1e8)
		return igam_uniform(a, x, false);
	if (x > 1 && x > a)
		return 1 - sf_igammac(a, x);
	return igam_series(a, x);
}

/* ---- zeta and polygamma ---- */

/* The Hurwitz zeta function sum_{k>=0} (q + k)^-x by the Euler-Maclaurin
 * formula: the sum's first terms (at least 10, and on to q + k > 9), then
 * the integral of the rest, half its first term and the Bernoulli terms
 * B_2j / (2j)! x (x + 1) ... (x + 2j - 2) (q + N)^(-x - 2j + 1). Edges as
 * PyTorch's: x = 1 the pole (inf), x < 1 NaN, q a non-positive integer inf,
 * another q <= 0 NaN unless x is an integer; q = inf NaN, and x = inf NaN
 * for q > 1. */
double sf_zeta(double x, double q)
{
	/* (2j)! / B_2j */
	static const double C[] = {12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9, 7.47242496e10,
	                           -2.950130727918164224e12, 1.1646782814350067249e14, -4.5979787224074726105e15,
	                           1.8152105401943546773e17, -7.1661652561756670113e18};
	if (x == 1)
		return INFINITY;
	if (x < 1)
		return NAN;
	if (q <= 0) {
		if (q == floor(q))
			return INFINITY;
		if (x != floor(x))
			return NAN;
	}
	if (q == INFINITY || (x == INFINITY && q > 1))
		return NAN; /* PyTorch's: its tail makes 0 * inf of the limit 0 there */
	double s = pow(q, -x), a = q, b = 0;
	for (int i = 0; i < 9 || a <= 9; i++) {
		a += 1;
		b = pow(a, -x);
		s += b;
		if (-EPS * s < b && b < EPS * s)
			return s;
	}
	/* the integral from q + N to inf, less half of the last term (pow: where b underflows
	 * the integral need not; PyTorch's b w / (x - 1) makes 0 of it there) */
	double w = a, f = 1, k = 0;
	s += pow(w, 1 - x) / (x - 1) - b / 2;
	for (int j = 0; j < 12 && b != 0; j++) {
		f *= x + k;
		b /= w;
		double t = f * b / C[j];
		s += t;
		if (fabs(t / s) < EPS)
			break;
		k += 1;
		f *= x + k;
		b /= w;
		k += 1;
	}
	return s;
}

/* psi'(x): the reflection psi'(x) = pi^2 / sin^2(pi x) - psi'(1 - x) below
 * 1/2, the recurrence psi'(x) = psi'(x + 1) + 1 / x^2 up to 10, then the
 * asymptotic series 1 / x + 1 / (2 x^2) + sum B_2k / x^(2k + 1). Its poles
 * (x = 0, -1, -2, ...) are inf (PyTorch's sin(pi x) leaves a large finite
 * value at the negative ones), -inf NaN. */
static double trigamma(double x)
{
	static const double B[] = {1.0 / 6, -1.0 / 30, 1.0 / 42, -1.0 / 30, 5.0 / 66, -691.0 / 2730, 7.0 / 6, -3617.0 / 510};
	if (isinf(x))
		return x > 0 ? 0 : NAN;
	if (x <= 0 && x == floor(x))
		return INFINITY;
	if (x < 0.5) {
		double s = sin(M_PI * (x - nearbyint(x))); /* exact: near the poles too */
		return M_PI * M_PI / (s * s) - trigamma(1 - x);
	}
	double res = 0;
	for (; x < 10; x += 1)
		res += 1 / (x * x);
	double z = 1 / (x * x), p = 0;
	for (int k = 7; k >= 0; k--)
		p = p * z + B[k];
	return res + 1 / x + z / 2 + p * z / x;
}

/* psi^(n)(x) for an integer n >= 1: trigamma, then (-1)^(n + 1) n! zeta(n + 1, x)
 * (PyTorch's). n = 0 (digamma) is scalar.c's; n not a non-negative integer
 * is NaN. */
double sf_polygamma(double n, double x)
{
	if (!(n >= 1) || n != floor(n) || isinf(n))
		return NAN;
	if (n == 1)
		return trigamma(x);
	double fact = 1;
	for (double k = 2; k <= n && isfinite(fact); k++)
		fact *= k;
	return (fmod(n, 2) == 1 ? 1 : -1) * fact * sf_zeta(n + 1, x);
}

/* ---- erfcx and ndtri ---- */

/* exp(x^2) without the rounding of x^2: x = h + l with h of 26 bits (Dekker's
 * split), h^2 exact, the rest small. |x| < 27. */
static double exp_square(double x)
{
	double c = 134217729.0 * x, h = c - (c - x), l = x - h;
	return exp(h * h) * exp(l * (2 * h + l));
}

/* exp(x^2) erfc(x): the product below 25 (erfc's digits are kept, exp's
 * argument exact), Laplace's continued fraction 1 / sqrt(pi) / (x + (1/2) /
 * (x + 1 / (x + (3/2) / (x + ...)))) above, where erfc underflows, and
 * 2 exp(x^2) - erfcx(-x) for negative x (inf below about -26.6). */
double sf_erfcx(double x)
{
	if (isnan(x))
		return x;
	if (x < 0)
		return x < -27 ? INFINITY : 2 * exp_square(x) - sf_erfcx(-x);
	if (x < 25)
		return exp_square(x) * erfc(x);
	double t = x;
	for (int k = 16; k >= 1; k--)
		t = x + k / 2.0 / t;
	return 1 / (sqrt(M_PI) * t);
}

/* The standard normal distribution function's inverse: Halley's iteration
 * on Phi(x) = p from Abramowitz and Stegun's 26.2.23 (error below 4.5e-4).
 * In the middle, p in [0.25, 0.75], on erf(x / sqrt 2) / 2 = p - 1/2 (exact
 * there), so that x near 0 keeps its relative digits; below, on erfc(-x /
 * sqrt 2) / 2 = p, which keeps them in the tail; above 0.75, -ndtri(1 - p)
 * (1 - p exact). ndtri(0) = -inf, ndtri(1) = inf, NaN outside [0, 1]. */
static double ndtri_below(double p, bool middle)
{
	if (middle && p == 0.5)
		return 0;
	double q = p < 0.5 ? p : 1 - p, t = sqrt(-2 * log(q));
	double x = t - (2.515517 + t * (0.802853 + t * 0.010328)) / (1 + t * (1.432788 + t * (0.189269 + t * 0.001308)));
	x = p < 0.5 ? -x : x;
	for (int i = 0; i < 8; i++) {
		double phi = exp(-x * x / 2) / sqrt(2 * M_PI);
		double f = middle ? erf(x / M_SQRT2) / 2 - (p - 0.5) : erfc(-x / M_SQRT2) / 2 - p;
		double r = f / phi, dx = r / (1 + x * r / 2);
		if (!isfinite(dx))
			break;
		x -= dx;
		if (fabs(dx) <= 1e-17 * fabs(x))
			break;
	}
	return x;
}

/* ndtri(p) for p < 1e-290, where erfc's result is subnormal and loses its
 * digits: Newton's iteration on log Phi(x) = log p, with log Phi(x) =
 * -x^2 / 2 - log(-x) - log(2 pi) / 2 + log(1 - 1/x^2 + 3/x^4 - 15/x^6 + ...)
 * (x < -36, its asymptotic series). */
static double ndtri_tiny(double p)
{
	double lp = log(p), x = -sqrt(-2 * lp);
	for (int i = 0; i < 8; i++) {
		double z = 1 / (x * x), s = z * (-1 + z * (3 + z * (-15 + z * (105 + z * (-945 + z * 10395)))));
		double g = -x * x / 2 - log(-x) - 0.9189385332046728 + log1p(s) - lp;
		double dx = g / (-x - 1 / x);
		x -= dx;
		if (fabs(dx) <= 1e-16 * fabs(x))
			break;
	}
	return x;
}

double sf_ndtri(double p)
{
	if (isnan(p) || p < 0 || p > 1)
		return NAN;
	if (p == 0 || p == 1)
		return p == 0 ? -INFINITY : INFINITY;
	if (p < 1e-290)
		return ndtri_tiny(p);
	if (p > 0.75)
		return -ndtri_below(1 - p, false);
	return ndtri_below(p, p >= 0.25);
}

/* ---- Airy's Ai ----
 * Ai solves y'' = x y. Near 0 its Maclaurin series; far from 0 its
 * asymptotic series (DLMF 9.7.5, 9.7.6, 9.7.9), which reach double's
 * precision once zeta = 2/3 |x|^(3/2) > 20 (|x| >= 10). Between, Taylor
 * steps of the differential equation: from 0 toward negative x (Ai and Bi
 * oscillate alike, no error grows), and back from 10 toward positive x (Ai
 * grows that way and Bi shrinks: the recessive solution is integrated in its
 * stable direction). */

#define AIRY_FAR 10.0

/* y and y' at x0 + h from those at x0, by the Taylor series of the
 * equation's solution: (n + 2)(n + 1) c_(n+2) = x0 c_n + c_(n-1). With
 * |h| <= 2 at x0 = 0 and |h| <= 1/2 elsewhere (|x0| <= 10), 48 terms leave
 * less than 1e-30. */
static void airy_step(double x0, double h, double *y, double *dy)
{
	double c[3] = {*y, *dy, x0 * *y / 2}; /* c_(n-2), c_(n-1), c_n */
	double s = *y + *dy * h, ds = *dy, hn = h; /* hn = h^(n-1) */
	for (int n = 2; n < 48; n++) {
		ds += n * c[2] * hn;
		hn *= h;
		s += c[2] * hn;
		double next = (x0 * c[1] + c[0]) / ((n + 1) * n); /* c_(n+1) */
		c[0] = c[1];
		c[1] = c[2];
		c[2] = next;
	}
	*y = s;
	*dy = ds;
}

/* The u_k of DLMF 9.7.2: u_k = (6k - 5)(6k - 3)(6k - 1) / (216 k (2k - 1)) u_(k-1) */
static double airy_u(int k, double u)
{
	return u * (6.0 * k - 5) * (6.0 * k - 3) * (6.0 * k - 1) / (216.0 * k * (2.0 * k - 1));
}

/* Ai(x) and Ai'(x) for x >= AIRY_FAR: e^-zeta / (2 sqrt(pi)) x^(-1/4) sum (-1)^k u_k / zeta^k,
 * and -x^(1/4) ... sum (-1)^k v_k / zeta^k, v_k = -(6k + 1) / (6k - 1) u_k */
static void airy_zeta(double y, double *hi, double *lo);

static void airy_far_right(double x, double *ai, double *dai)
{
	double z, z_lo, u = 1, su = 1, sv = 1, zk = 1;
	airy_zeta(x, &z, &z_lo);
	for (int k = 1; k < 40; k++) {
		u = airy_u(k, u);
		zk *= -z;
		su += u / zk;
		sv -= (6.0 * k + 1) / (6.0 * k - 1) * u / zk;
		if (u / fabs(zk) < EPS * 1e-2)
			break;
	}
	double e = exp(-z) * (1 - z_lo) / (2 * sqrt(M_PI)), r = sqrt(sqrt(x));
	*ai = e / r * su;
	*dai = -e * r * sv;
}

/* zeta = 2/3 y^(3/2) as hi + lo (double-double): its rounding alone, some
 * 2^-53 zeta, would move e^-zeta or the phase by some 1e-13 at |x| = 100,
 * 1e-3 at 2^31. fma gives the exact low parts of the products. */
static void airy_zeta(double y, double *hi, double *lo)
{
	const double c_hi = 2.0 / 3, c_lo = 3.700743415417188e-17; /* 2/3 = c_hi + c_lo */
	double r = sqrt(y), rc = fma(-r, r, y) / (2 * r); /* sqrt(y) = r + rc */
	double p_hi = y * r, p_lo = fma(y, r, -p_hi) + y * rc;
	*hi = p_hi * c_hi;
	*lo = fma(p_hi, c_hi, -*hi) + p_hi * c_lo + p_lo * c_hi;
}

/* zeta - pi/4 modulo 2 pi, y <= 2^36 (k 2 pi exact in double-double) */
static double airy_phase(double y)
{
	const double p1 = 6.283185307179586, p2 = 2.4492935982947064e-16; /* 2 pi = p1 + p2 */
	double z_hi, z_lo;
	airy_zeta(y, &z_hi, &z_lo);
	double k = nearbyint(z_hi / p1), m_hi = k * p1, m_lo = fma(k, p1, -m_hi);
	return (z_hi - m_hi) - m_lo - k * p2 + z_lo - M_PI / 4;
}

/* Ai(-y) for y >= AIRY_FAR: (cos(zeta - pi/4) sum (-1)^k u_2k / zeta^2k + sin(zeta - pi/4)
 * sum (-1)^k u_(2k+1) / zeta^(2k+1)) / (sqrt(pi) y^(1/4)); NaN beyond 2^36, where
 * not even the double-double phase is sure */
static double airy_far_left(double y)
{
	if (y > 68719476736.0)
		return NAN;
	double z = 2.0 / 3 * y * sqrt(y), u = 1, even = 1, odd = 0, zk = 1;
	for (int k = 1; k < 40; k++) {
		u = airy_u(k, u);
		zk *= z;
		double t = ((k / 2) % 2 ? -u : u) / zk;
		if (k % 2)
			odd += t;
		else
			even += t;
		if (u / zk < EPS * 1e-2)
			break;
	}
	double ph = airy_phase(y);
	return (cos(ph) * even + sin(ph) * odd) / (sqrt(M_PI) * sqrt(sqrt(y)));
}

/* Ai(x); PyTorch's edges: NaN at +-inf, 0 above 103.892 (where it
 * underflows double); NaN below -2^36 (airy_far_left). */
double sf_airy_ai(double x)
{
	if (isinf(x) || isnan(x))
		return NAN;
	if (x > 103.892)
		return 0;
	if (x >= AIRY_FAR) {
		double ai, dai;
		airy_far_right(x, &ai, &dai);
		return ai;
	}
	if (x <= -AIRY_FAR)
		return airy_far_left(-x);
	double y = 0.355028053887817239260, dy = -0.258819403792806798405, x0 = 0, h = x; /* Ai(0), Ai'(0) */
	int steps = 1;
	if (x > 2) {
		airy_far_right(AIRY_FAR, &y, &dy);
		x0 = AIRY_FAR;
		steps = (int)ceil((AIRY_FAR - x) * 2);
		h = (x - AIRY_FAR) / steps;
	} else if (x < -2) {
		steps = (int)ceil(-x * 2);
		h = x / steps;
	}
	for (int i = 0; i < steps; i++, x0 += h)
		airy_step(x0, h, &y, &dy);
	return y;
}
