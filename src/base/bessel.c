/* The Bessel functions and the classical orthogonal polynomials of the
 * language, in double (val_op rounds the result to the dtype once):
 *   i0 i0e i1 i1e k0 k0e k1 k1e (modified, of the first and second kind;
 *   the e forms scaled by exp(-|x|), exp(x)), bessel_j0 bessel_j1
 *   bessel_y0 bessel_y1, spherical_bessel_j0, and the polynomials of x of
 *   degree n: chebyshev_t/u/v/w, their shifted forms on [0, 1], hermite_h,
 *   hermite_he, laguerre_l, legendre_p.
 * The edge cases are PyTorch's (its CPU kernels): a degree is truncated
 * toward zero, one below zero (or NaN, or beyond int64) gives 0, and the
 * Chebyshev polynomials take their trigonometric forms above a small degree
 * inside (-1, 1). Where PyTorch's recurrence would take more than
 * MAX_STEPS steps, a Chebyshev polynomial takes its hyperbolic form and the
 * others give NaN.
 * The expansions and coefficients are Cephes' (Stephen L. Moshier, Cephes
 * Math Library, BSD licence), as SciPy and PyTorch use them: Chebyshev
 * series for i0/i1/k0/k1 on [0, 8] / [0, 2] and beyond, rational functions
 * for j0/j1/y0/y1 up to 5 and their asymptotic forms beyond. */
#include <math.h>
#include <stdint.h>

#include "base.h"

/* The most steps a polynomial's recurrence takes (PyTorch's takes n). */
#define MAX_STEPS (1 << 20)

static const double PI = 3.14159265358979323846;

/* j0, j1 (and y0, y1, which share P and Q): beyond 5, P(25/x^2) and
 * Q(25/x^2) of the asymptotic form, each a ratio of polynomials; up to 5,
 * R(x^2) times the factors of the first two zeros. The Q denominators (QQ,
 * RQ, YQ) have a leading coefficient 1 that the tables leave out. */
static const double J0_PP[] = {
	+7.96936729297347051624e-04, +8.28352392107440799803e-02, +1.23953371646414299388e+00,
	+5.44725003058768775090e+00, +8.74716500199817011941e+00, +5.30324038235394892183e+00,
	+9.99999999999999997821e-01
};
static const double J0_PQ[] = {
	+9.24408810558863637013e-04, +8.56288474354474431428e-02, +1.25352743901058953537e+00,
	+5.47097740330417105182e+00, +8.76190883237069594232e+00, +5.30605288235394617618e+00,
	+1.00000000000000000218e+00
};
static const double J0_QP[] = {
	-1.13663838898469149931e-02, -1.28252718670509318512e+00, -1.95539544257735972385e+01,
	-9.32060152123768231369e+01, -1.77681167980488050595e+02, -1.47077505154951170175e+02,
	-5.14105326766599330220e+01, -6.05014350600728481186e+00
};
static const double J0_QQ[] = {
	+6.43178256118178023184e+01, +8.56430025976980587198e+02, +3.88240183605401609683e+03,
	+7.24046774195652478189e+03, +5.93072701187316984827e+03, +2.06209331660327847417e+03,
	+2.42005740240291393179e+02
};
static const double J0_RP[] = {
	-4.79443220978201773821e+09, +1.95617491946556577543e+12, -2.49248344360967716204e+14,
	+9.70862251047306323952e+15
};
static const double J0_RQ[] = {
	+4.99563147152651017219e+02, +1.73785401676374683123e+05, +4.84409658339962045305e+07,
	+1.11855537045356834862e+10, +2.11277520115489217587e+12, +3.10518229857422583814e+14,
	+3.18121955943204943306e+16, +1.71086294081043136091e+18
};
static const double J1_PP[] = {
	+7.62125616208173112003e-04, +7.31397056940917570436e-02, +1.12719608129684925192e+00,
	+5.11207951146807644818e+00, +8.42404590141772420927e+00, +5.21451598682361504063e+00,
	+1.00000000000000000254e+00
};
static const double J1_PQ[] = {
	+5.71323128072548699714e-04, +6.88455908754495404082e-02, +1.10514232634061696926e+00,
	+5.07386386128601488557e+00, +8.39985554327604159757e+00, +5.20982848682361821619e+00,
	+9.99999999999999997461e-01
};
static const double J1_QP[] = {
	+5.10862594750176621635e-02, +4.98213872951233449420e+00, +7.58238284132545283818e+01,
	+3.66779609360150777800e+02, +7.10856304998926107277e+02, +5.97489612400613639965e+02,
	+2.11688757100572135698e+02, +2.52070205858023719784e+01
};
static const double J1_QQ[] = {
	+7.42373277035675149943e+01, +1.05644886038262816351e+03, +4.98641058337653607651e+03,
	+9.56231892404756170795e+03, +7.99704160447350683650e+03, +2.82619278517639096600e+03,
	+3.36093607810698293419e+02
};
static const double J1_RP[] = {
	-8.99971225705559398224e+08, +4.52228297998194034323e+11, -7.27494245221818276015e+13,
	+3.68295732863852883286e+15
};
static const double J1_RQ[] = {
	+6.20836478118054335476e+02, +2.56987256757748830383e+05, +8.35146791431949253037e+07,
	+2.21511595479792499675e+10, +4.74914122079991414898e+12, +7.84369607876235854894e+14,
	+8.95222336184627338078e+16, +5.32278620332680085395e+18
};
/* y0 up to 5: P/Q(x^2) + 2/pi log(x) j0(x); y1: x P/Q + 2/pi (j1 log x - 1/x) */
static const double Y0_P[] = {
	+1.55924367855235737965e+04, -1.46639295903971606143e+07, +5.43526477051876500413e+09,
	-9.82136065717911466409e+11, +8.75906394395366999549e+13, -3.46628303384729719441e+15,
	+4.42733268572569800351e+16, -1.84950800436986690637e+16
};
static const double Y0_Q[] = {
	+1.04128353664259848412e+03, +6.26107330137134956842e+05, +2.68919633393814121987e+08,
	+8.64002487103935000337e+10, +2.02979612750105546709e+13, +3.17157752842975028269e+15,
	+2.50596256172653059228e+17
};
static const double Y1_P[] = {
	+1.26320474790178026440e+09, -6.47355876379160291031e+11, +1.14509511541823727583e+14,
	-8.12770255501325109621e+15, +2.02439475713594898196e+17, -7.78877196265950026825e+17
};
static const double Y1_Q[] = {
	+5.94301592346128195359e+02, +2.35564092943068577943e+05, +7.34811944459721705660e+07,
	+1.87601316108706159478e+10, +3.88231277496238566008e+12, +6.20557727146953693363e+14,
	+6.87141087355300489866e+16, +3.97270608116560655612e+18
};
/* Chebyshev series of exp(-x) i0(x), exp(-x) i1(x) / x on [0, 8] (in
 * x/2 - 2) and of exp(-x) sqrt(x) i0(x), i1(x) beyond (in 32/x - 2); of
 * k0(x) + log(x/2) i0(x) and x k1(x) - x log(x/2) i1(x) on (0, 2] (in
 * x^2 - 2) and of exp(x) sqrt(x) k0(x), k1(x) beyond (in 8/x - 2). */
static const double I0_A[] = {
	-4.41534164647933937950e-18, +3.33079451882223809783e-17, -2.43127984654795469359e-16,
	+1.71539128555513303061e-15, -1.16853328779934516808e-14, +7.67618549860493561688e-14,
	-4.85644678311192946090e-13, +2.95505266312963983461e-12, -1.72682629144155570723e-11,
	+9.67580903537323691224e-11, -5.18979560163526290666e-10, +2.65982372468238665035e-09,
	-1.30002500998624804212e-08, +6.04699502254191894932e-08, -2.67079385394061173391e-07,
	+1.11738753912010371815e-06, -4.41673835845875056359e-06, +1.64484480707288970893e-05,
	-5.75419501008210370398e-05, +1.88502885095841655729e-04, -5.76375574538582365885e-04,
	+1.63947561694133579842e-03, -4.32430999505057594430e-03, +1.05464603945949983183e-02,
	-2.37374148058994688156e-02, +4.93052842396707084878e-02, -9.49010970480476444210e-02,
	+1.71620901522208775349e-01, -3.04682672343198398683e-01, +6.76795274409476084995e-01
};
static const double I0_B[] = {
	-7.23318048787475395456e-18, -4.83050448594418207126e-18, +4.46562142029675999901e-17,
	+3.46122286769746109310e-17, -2.82762398051658348494e-16, -3.42548561967721913462e-16,
	+1.77256013305652638360e-15, +3.81168066935262242075e-15, -9.55484669882830764870e-15,
	-4.15056934728722208663e-14, +1.54008621752140982691e-14, +3.85277838274214270114e-13,
	+7.18012445138366623367e-13, -1.79417853150680611778e-12, -1.32158118404477131188e-11,
	-3.14991652796324136454e-11, +1.18891471078464383424e-11, +4.94060238822496958910e-10,
	+3.39623202570838634515e-09, +2.26666899049817806459e-08, +2.04891858946906374183e-07,
	+2.89137052083475648297e-06, +6.88975834691682398426e-05, +3.36911647825569408990e-03,
	+8.04490411014108831608e-01
};
static const double I1_A[] = {
	+2.77791411276104639959e-18, -2.11142121435816608115e-17, +1.55363195773620046921e-16,
	-1.10559694773538630805e-15, +7.60068429473540693410e-15, -5.04218550472791168711e-14,
	+3.22379336594557470981e-13, -1.98397439776494371520e-12, +1.17361862988909016308e-11,
	-6.66348972350202774223e-11, +3.62559028155211703701e-10, -1.88724975172282928790e-09,
	+9.38153738649577178388e-09, -4.44505912879632808065e-08, +2.00329475355213526229e-07,
	-8.56872026469545474066e-07, +3.47025130813767847674e-06, -1.32731636560394358279e-05,
	+4.78156510755005422638e-05, -1.61760815825896745588e-04, +5.12285956168575772895e-04,
	-1.51357245063125314899e-03, +4.15642294431288815669e-03, -1.05640848946261981558e-02,
	+2.47264490306265168283e-02, -5.29459812080949914269e-02, +1.02643658689847095384e-01,
	-1.76416518357834055153e-01, +2.52587186443633654823e-01
};
static const double I1_B[] = {
	+7.51729631084210481353e-18, +4.41434832307170791151e-18, -4.65030536848935832153e-17,
	-3.20952592199342395980e-17, +2.96262899764595013876e-16, +3.30820231092092828324e-16,
	-1.88035477551078244854e-15, -3.81440307243700780478e-15, +1.04202769841288027642e-14,
	+4.27244001671195135429e-14, -2.10154184277266431302e-14, -4.08355111109219731823e-13,
	-7.19855177624590851209e-13, +2.03562854414708950722e-12, +1.41258074366137813316e-11,
	+3.25260358301548823856e-11, -1.89749581235054123450e-11, -5.58974346219658380687e-10,
	-3.83538038596423702205e-09, -2.63146884688951950684e-08, -2.51223623787020892529e-07,
	-3.88256480887769039346e-06, -1.10588938762623716291e-04, -9.76109749136146840777e-03,
	+7.78576235018280120474e-01
};
static const double K0_A[] = {
	+1.37446543561352307156e-16, +4.25981614279661018399e-14, +1.03496952576338420167e-11,
	+1.90451637722020886025e-09, +2.53479107902614945675e-07, +2.28621210311945178607e-05,
	+1.26461541144692592338e-03, +3.59799365153615016266e-02, +3.44289899924628486886e-01,
	-5.35327393233902768720e-01
};
static const double K0_B[] = {
	+5.30043377268626276149e-18, -1.64758043015242134646e-17, +5.21039150503902756861e-17,
	-1.67823109680541210385e-16, +5.51205597852431940784e-16, -1.84859337734377901440e-15,
	+6.34007647740507060557e-15, -2.22751332699166985548e-14, +8.03289077536357521100e-14,
	-2.98009692317273043925e-13, +1.14034058820847496303e-12, -4.51459788337394416547e-12,
	+1.85594911495471785253e-11, -7.95748924447710747776e-11, +3.57739728140030116597e-10,
	-1.69753450938905987466e-09, +8.57403401741422608519e-09, -4.66048989768794782956e-08,
	+2.76681363944501510342e-07, -1.83175552271911948767e-06, +1.39498137188764993662e-05,
	-1.28495495816278026384e-04, +1.56988388573005337491e-03, -3.14481013119645005427e-02,
	+2.44030308206595545468e+00
};
static const double K1_A[] = {
	-7.02386347938628759343e-18, -2.42744985051936593393e-15, -6.66690169419932900609e-13,
	-1.41148839263352776110e-10, -2.21338763073472585583e-08, -2.43340614156596823496e-06,
	-1.73028895751305206302e-04, -6.97572385963986435018e-03, -1.22611180822657148235e-01,
	-3.53155960776544875667e-01, +1.52530022733894777053e+00
};
static const double K1_B[] = {
	-5.75674448366501715755e-18, +1.79405087314755922667e-17, -5.68946255844285935196e-17,
	+1.83809354436663880070e-16, -6.05704724837331885336e-16, +2.03870316562433424052e-15,
	-7.01983709041831346144e-15, +2.47715442448130437068e-14, -8.97670518232499435011e-14,
	+3.34841966607842919884e-13, -1.28917396095102890680e-12, +5.13963967348173025100e-12,
	-2.12996783842756842877e-11, +9.21831518760500529508e-11, -4.19035475934189648750e-10,
	+2.01504975519703286596e-09, -1.03457624656780970260e-08, +5.74108412545004946722e-08,
	-3.50196060308781257119e-07, +2.40648494783721712015e-06, -1.93619797416608296024e-05,
	+1.95215518471351631108e-04, -2.85781685962277938680e-03, +1.03923736576817238437e-01,
	+2.72062619048444266945e+00
};

#define LEN(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* c[0] x^(n-1) + ... + c[n-1]; with lead, x^n + that */
static double poly(double x, const double *c, int n, bool lead)
{
	double r = lead ? 1 : 0;
	for (int i = 0; i < n; i++)
		r = r * x + c[i];
	return r;
}

/* The sum of c[i] T_i(y/2) - c[0]/2 (Clenshaw's recurrence; Cephes' chbevl). */
static double chebyshev_series(double y, const double *c, int n)
{
	double b0 = c[0], b1 = 0, b2 = 0;
	for (int i = 1; i < n; i++) {
		b2 = b1;
		b1 = b0;
		b0 = y * b1 - b2 + c[i];
	}
	return 0.5 * (b0 - b2);
}

/* exp(-|x|) i0(x) and exp(-|x|) i1(x) */
static double i0e(double x)
{
	double a = fabs(x);
	if (a <= 8)
		return chebyshev_series(a / 2 - 2, I0_A, LEN(I0_A));
	return chebyshev_series(32 / a - 2, I0_B, LEN(I0_B)) / sqrt(a);
}

static double i1e(double x)
{
	double a = fabs(x), r;
	if (a <= 8)
		r = chebyshev_series(a / 2 - 2, I1_A, LEN(I1_A)) * a;
	else
		r = chebyshev_series(32 / a - 2, I1_B, LEN(I1_B)) / sqrt(a);
	return x < 0 ? -r : r;
}

/* exp(|x|) times the scaled form: i0(+-inf) is NaN there, as PyTorch's */
static double i0(double x)
{
	return exp(fabs(x)) * i0e(x);
}

static double i1(double x)
{
	return exp(fabs(x)) * i1e(x);
}

/* log(x/2); x/2 of the smallest x would round to 0 */
static double log_half(double x)
{
	return x < 0x1p-1020 ? log(x) - 0.693147180559945309417 : log(0.5 * x);
}

/* k0 and k1, scaled by exp(x) when scaled: +inf at 0, NaN below */
static double k0(double x, bool scaled)
{
	if (x == 0)
		return INFINITY;
	if (x < 0)
		return NAN;
	if (x <= 2) {
		double r = chebyshev_series(x * x - 2, K0_A, LEN(K0_A)) - log_half(x) * i0(x);
		return scaled ? r * exp(x) : r;
	}
	double r = chebyshev_series(8 / x - 2, K0_B, LEN(K0_B)) / sqrt(x);
	return scaled ? r : exp(-x) * r;
}

static double k1(double x, bool scaled)
{
	if (x == 0)
		return INFINITY;
	if (x < 0)
		return NAN;
	if (x <= 2) {
		double r = log_half(x) * i1(x) + chebyshev_series(x * x - 2, K1_A, LEN(K1_A)) / x;
		return scaled ? r * exp(x) : r;
	}
	double r = chebyshev_series(8 / x - 2, K1_B, LEN(K1_B)) / sqrt(x);
	return scaled ? r : exp(-x) * r;
}

/* The asymptotic form beyond 5 of j (y: the other phase) of order 0 or 1:
 * sqrt(2/(pi x)) (P cos(x - phase) - 5/x Q sin(x - phase)), y with sin and
 * cos swapped and the sign of Q's term. NaN at infinity, as PyTorch's. */
static double bessel_far(double x, int order, bool y)
{
	const double *pp = order ? J1_PP : J0_PP, *pq = order ? J1_PQ : J0_PQ;
	const double *qp = order ? J1_QP : J0_QP, *qq = order ? J1_QQ : J0_QQ;
	double z = 25 / (x * x), w = 5 / x;
	double p = poly(z, pp, 7, false) / poly(z, pq, 7, false);
	double q = poly(z, qp, 8, false) / poly(z, qq, 7, true);
	double xn = x - (order ? 3 * (PI / 4) : (PI / 4)), s = sin(xn), c = cos(xn);
	double r = y ? p * s + w * q * c : p * c - w * q * s;
	return r * sqrt(2 / PI) / sqrt(x);
}

static double bessel_j0(double x)
{
	x = fabs(x);
	if (x > 5)
		return bessel_far(x, 0, false);
	double z = x * x;
	if (x < 1e-5)
		return 1 - z / 4;
	/* the first two zeros of j0, squared */
	return (z - 5.78318596294678452118) * (z - 30.4712623436620863991) * poly(z, J0_RP, 4, false) /
	       poly(z, J0_RQ, 8, true);
}

static double bessel_j1(double x)
{
	double a = fabs(x), r;
	if (a > 5) {
		r = bessel_far(a, 1, false);
	} else {
		double z = a * a;
		r = poly(z, J1_RP, 4, false) / poly(z, J1_RQ, 8, true) * a * (z - 14.6819706421238932572) *
		    (z - 49.2184563216946036703);
	}
	return x < 0 ? -r : r;
}

/* y0 and y1: -inf at 0, NaN below */
static double bessel_y0(double x)
{
	if (x > 5)
		return bessel_far(x, 0, true);
	if (x == 0)
		return -INFINITY;
	if (!(x > 0))
		return NAN;
	double z = x * x;
	return poly(z, Y0_P, 8, false) / poly(z, Y0_Q, 7, true) + 2 / PI * log(x) * bessel_j0(x);
}

static double bessel_y1(double x)
{
	if (x > 5)
		return bessel_far(x, 1, true);
	if (x == 0)
		return -INFINITY;
	if (!(x > 0))
		return NAN;
	double z = x * x;
	return x * (poly(z, Y1_P, 6, false) / poly(z, Y1_Q, 8, true)) + 2 / PI * (bessel_j1(x) * log(x) - 1 / x);
}

/* sin(x)/x, by its series below 0.5; 0 at the infinities */
static double spherical_j0(double x)
{
	if (isinf(x))
		return 0;
	if (fabs(x) < 0.5) {
		double z = x * x;
		return 1 + z * (-1 / 6.0 + z * (1 / 120.0 + z * (-1 / 5040.0 + z * (1 / 362880.0 +
		       z * (-1 / 39916800.0 + z * (1 / 6227020800.0))))));
	}
	return sin(x) / x;
}

double val_bessel(int op, double x)
{
	switch (op) {
	case OP_I0: return i0(x);
	case OP_I0E: return i0e(x);
	case OP_I1: return i1(x);
	case OP_I1E: return i1e(x);
	case OP_K0: return k0(x, false);
	case OP_K0E: return k0(x, true);
	case OP_K1: return k1(x, false);
	case OP_K1E: return k1(x, true);
	case OP_BESSEL_J0: return bessel_j0(x);
	case OP_BESSEL_J1: return bessel_j1(x);
	case OP_BESSEL_Y0: return bessel_y0(x);
	case OP_BESSEL_Y1: return bessel_y1(x);
	case OP_SPHERICAL_J0: return spherical_j0(x);
	}
	die("bad Bessel function");
}

/* ---- the polynomials */

/* The degree: n truncated toward zero, as a cast to int64 (x86's: NaN and
 * anything out of int64's range give its minimum, which is below zero). */
static int64_t degree(double n)
{
	if (!(n > -0x1p63 && n < 0x1p63))
		return INT64_MIN;
	return (int64_t)n;
}

/* Chebyshev polynomial of the first (kind 0), second (1), third (2) and
 * fourth (3) kind at y, of degree n >= 0; above degree trig inside (-1, 1)
 * the trigonometric form (PyTorch's, with its degrees and its guards). */
static double chebyshev(int kind, double y, int64_t n, int64_t trig)
{
	double dn = (double)n, odd = n % 2 ? -1 : 1;
	if (n == 0)
		return 1;
	if (fabs(y) == 1) { /* T 1, U n+1, V 1 or 2n+1, W 2n+1 or 1, with the sign of y^n */
		if (kind == 0)
			return y > 0 ? 1 : odd;
		if (kind == 1)
			return y > 0 ? dn + 1 : odd * (dn + 1);
		if (kind == 2)
			return y > 0 ? 1 : odd * (2 * dn + 1);
		return y > 0 ? 2 * dn + 1 : odd;
	}
	if (n > trig && fabs(y) < 1) {
		double t = acos(y);
		switch (kind) {
		case 0: return cos(dn * t);
		case 1: return sin(t) != 0 ? sin((dn + 1) * t) / sin(t) : (dn + 1) * cos((dn + 1) * t) / y;
		case 2: return sin(t / 2) != 1 ? cos((dn + 0.5) * t) / cos(t / 2) : odd * (2 * dn + 1);
		default: return cos(t / 2) != 1 ? sin((dn + 0.5) * t) / sin(t / 2) : y > 0 ? 2 * dn + 1 : odd;
		}
	}
	double p = 1, q = kind == 0 ? y : kind == 1 ? 2 * y : kind == 2 ? 2 * y - 1 : 2 * y + 1;
	if (n > MAX_STEPS && fabs(y) > 1) {
		/* |y| = cosh(t); T = cosh(nt), U = sinh((n+1)t)/sinh(t), V = cosh((n+1/2)t)/cosh(t/2),
		 * W = sinh((n+1/2)t)/sinh(t/2) at |y|, V and W trading places below -1; where it
		 * overflows, the NaN the recurrence reaches (inf - inf) */
		double t = acosh(fabs(y)), r;
		int k = y < 0 && kind >= 2 ? 5 - kind : kind;
		r = k == 0 ? cosh(dn * t) : k == 1 ? sinh((dn + 1) * t) / sinh(t) : k == 2 ? cosh((dn + 0.5) * t) / cosh(t / 2)
		                                                                          : sinh((dn + 0.5) * t) / sinh(t / 2);
		return isinf(r) ? NAN : y < 0 ? odd * r : r;
	}
	double r = q;
	for (int64_t k = 2; k <= n && !isnan(q); k++) {
		r = 2 * y * q - p;
		p = q;
		q = r;
	}
	return r;
}

/* Hermite's physicists' (he: 0) and probabilists' (he: 1) polynomials;
 * NaN above degree 512 (128 below f64: PyTorch's limits for double and
 * float) */
static double hermite(bool he, DType t, double x, int64_t n)
{
	if (n < 0)
		return 0;
	if (n == 0)
		return 1;
	if (n == 1)
		return he ? x : 2 * x;
	if (n > (t == ATHENE_F64 ? 512 : 128))
		return NAN;
	double p = 1, q = he ? x : 2 * x, r = 0;
	for (int64_t k = 1; k < n; k++) {
		r = he ? x * q - (double)k * p : 2 * x * q - (double)(2 * k) * p;
		p = q;
		q = r;
	}
	return r;
}

static double laguerre(double x, int64_t n)
{
	if (n < 0)
		return 0;
	if (x == 0 || n == 0)
		return 1;
	if (n == 1)
		return 1 - x;
	if (n > MAX_STEPS)
		return NAN;
	double p = 1, q = 1 - x, r = q;
	for (int64_t k = 1; k < n && !isnan(q); k++) {
		double dk = (double)k;
		r = ((2 * dk + (1 - x)) * q - dk * p) / (dk + 1);
		p = q;
		q = r;
	}
	return r;
}

static double legendre(double x, int64_t n)
{
	if (n < 0)
		return 0;
	if (fabs(x) == 1)
		return x > 0 || n % 2 == 0 ? 1 : -1;
	if (n == 0)
		return 1;
	if (n == 1)
		return x;
	if (n > MAX_STEPS)
		return NAN;
	double p = 1, q = x, r = q;
	for (int64_t k = 1; k < n && !isnan(q); k++) {
		double dk = (double)k;
		r = ((2 * dk + 1) * x * q - dk * p) / (dk + 1);
		p = q;
		q = r;
	}
	return r;
}

double val_polynomial(int op, DType t, double x, double dn)
{
	int64_t n = degree(dn);
	switch (op) {
	case OP_HERMITE_H: return hermite(false, t, x, n);
	case OP_HERMITE_HE: return hermite(true, t, x, n);
	case OP_LAGUERRE_L: return laguerre(x, n);
	case OP_LEGENDRE_P: return legendre(x, n);
	}
	if (n < 0)
		return 0;
	if (op >= OP_SHIFTED_CHEBYSHEV_T && op <= OP_SHIFTED_CHEBYSHEV_W) /* of 2x - 1 */
		return chebyshev(op - OP_SHIFTED_CHEBYSHEV_T, 2 * x - 1, n, op == OP_SHIFTED_CHEBYSHEV_W ? 4 : 6);
	if (op >= OP_CHEBYSHEV_T && op <= OP_CHEBYSHEV_W)
		return chebyshev(op - OP_CHEBYSHEV_T, x, n, op == OP_CHEBYSHEV_T ? 6 : 8);
	die("bad polynomial");
}
