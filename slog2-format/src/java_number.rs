//! Java's `Double.toString` and `Float.toString` as the JDK 8 … 18 write them
//! (`sun.misc.FloatingDecimal`), digit for digit: what MPE's Java tools
//! (slog2print, Jumpshot's info boxes) printed, so the text users search and
//! compare is the same. JDK 19 and newer print the shortest digits instead
//! (`5.0E-324` where JDK 17 prints `4.9E-324`); this module is the older form.
//!
//! The algorithm, as the JDK documents and implements it (spec/conversion.md
//! §12.1):
//!
//! * Integer-valued numbers with binary exponent in −21 … 62 print the exact
//!   integer, after rounding away (half up) the decimal digits below the
//!   type's precision, trailing zeros dropped.
//! * Every other number is developed digit by digit from `B / S · 10^e`
//!   (Steele & White): `e` is estimated from the binary exponent, the digit
//!   loop stops once the remainder is within `M`, half an ULP of the value's
//!   own significant bits (a quarter for a power of two), and the last digit is
//!   rounded up when the remainder is above half, or at exactly half when odd.
//!   When the value will be written with an exponent (`E`) at least two digits
//!   are developed. For operands that fit, the JDK computes in 32- or 64-bit
//!   integers, with their overflow, and stops at `b + m > 10·s`; with big
//!   integers it stops at `b + m ≥ 10·s`. Both are reproduced.
//! * Layout: `-` for a negative sign; decimal point form when the exponent of
//!   the first digit is in −3 … 6 (`0.001`, `1234567.0`), else `d.dddE±x`, at
//!   least one digit after the point; `NaN`, `Infinity`, `-Infinity`, `0.0`,
//!   `-0.0`.

/// `floor(log10(2^p2))` for `p2` in 2 … 63, else 0 (the JDK's
/// `insignificantDigitsForPow2`).
fn insignificant_digits_for_pow2(p2: i32) -> u32 {
    if p2 > 1 && p2 < 64 {
        (1u128 << p2).ilog10()
    } else {
        0
    }
}

/// Bits in `5^i` for `i` < 27, else `3·i` (the JDK's `N_5_BITS` estimate).
fn n5_bits(i: i32) -> i32 {
    if i < 27 {
        let p = 5u64.pow(i as u32);
        64 - p.leading_zeros() as i32
    } else {
        i * 3
    }
}

/// The JDK's `estimateDecExp`: `floor` of an estimate of `log10` of the value.
// The JDK's constants as written: 0.301029995663981 is not `LOG10_2`'s double.
#[allow(clippy::approx_constant)]
fn estimate_dec_exp(fract: u64, bin_exp: i32) -> i32 {
    let d2 = f64::from_bits(0x3ff0_0000_0000_0000 | (fract & ((1u64 << 52) - 1)));
    let d = (d2 - 1.5) * 0.289529654 + 0.176091259 + bin_exp as f64 * 0.301029995663981;
    d.floor() as i32
}

/// A non-negative big integer, little-endian 32-bit limbs.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Big(Vec<u32>);

impl Big {
    /// `v · 5^p5 · 2^p2`.
    fn mul_pow52(v: u64, p5: i32, p2: i32) -> Big {
        let mut b = Big(vec![v as u32, (v >> 32) as u32]);
        // 5^13 is the largest power of five in 32 bits.
        for _ in 0..p5 / 13 {
            b.mul_small(1_220_703_125);
        }
        b.mul_small(5u32.pow((p5 % 13) as u32));
        b.shl(p2 as u32);
        b.trim();
        b
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    fn mul_small(&mut self, m: u32) {
        let mut carry = 0u64;
        for limb in &mut self.0 {
            let v = u64::from(*limb) * u64::from(m) + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry != 0 {
            self.0.push(carry as u32);
        }
    }

    fn shl(&mut self, n: u32) {
        let (words, bits) = ((n / 32) as usize, n % 32);
        if bits != 0 {
            let mut carry = 0u32;
            for limb in &mut self.0 {
                let v = (*limb << bits) | carry;
                carry = *limb >> (32 - bits);
                *limb = v;
            }
            if carry != 0 {
                self.0.push(carry);
            }
        }
        if words != 0 {
            self.0.splice(0..0, std::iter::repeat_n(0, words));
        }
    }

    fn cmp(&self, o: &Big) -> std::cmp::Ordering {
        let (a, b) = (self.0.len(), o.0.len());
        if a != b {
            return a.cmp(&b);
        }
        for i in (0..a).rev() {
            if self.0[i] != o.0[i] {
                return self.0[i].cmp(&o.0[i]);
            }
        }
        std::cmp::Ordering::Equal
    }

    fn add(&self, o: &Big) -> Big {
        let n = self.0.len().max(o.0.len());
        let mut out = Vec::with_capacity(n + 1);
        let mut carry = 0u64;
        for i in 0..n {
            let v = u64::from(*self.0.get(i).unwrap_or(&0))
                + u64::from(*o.0.get(i).unwrap_or(&0))
                + carry;
            out.push(v as u32);
            carry = v >> 32;
        }
        if carry != 0 {
            out.push(carry as u32);
        }
        Big(out)
    }

    /// `self -= o`, given `self >= o`.
    fn sub_assign(&mut self, o: &Big) {
        let mut borrow = 0i64;
        for i in 0..self.0.len() {
            let v = i64::from(self.0[i]) - i64::from(*o.0.get(i).unwrap_or(&0)) - borrow;
            if v < 0 {
                self.0[i] = (v + (1i64 << 32)) as u32;
                borrow = 1;
            } else {
                self.0[i] = v as u32;
                borrow = 0;
            }
        }
        self.trim();
    }

    /// The JDK's `quoRemIteration`: returns `self / s` and leaves
    /// `(self % s) · 10` in `self`.
    fn quo_rem_10(&mut self, s: &Big) -> u32 {
        let mut q = 0;
        while self.cmp(s) != std::cmp::Ordering::Less {
            self.sub_assign(s);
            q += 1;
        }
        self.mul_small(10);
        self.trim();
        q
    }
}

/// The digits and decimal exponent (`0.d₁d₂… · 10^exp`) the JDK develops.
struct Digits {
    digits: Vec<u8>,
    dec_exponent: i32,
}

impl Digits {
    /// The JDK's `roundup`: adds one to the last digit, carrying.
    fn round_up(&mut self) {
        let mut i = self.digits.len() - 1;
        let mut q = self.digits[i];
        if q == b'9' {
            while q == b'9' && i > 0 {
                self.digits[i] = b'0';
                i -= 1;
                q = self.digits[i];
            }
            if q == b'9' {
                self.dec_exponent += 1;
                self.digits[0] = b'1';
                return;
            }
        }
        self.digits[i] = q + 1;
    }
}

/// The JDK's `developLongDigits` for an integer value.
fn long_digits(mut value: u64, insignificant: u32) -> Digits {
    let mut dec_exponent = 0i32;
    if insignificant != 0 {
        let pow10 = 10u64.pow(insignificant);
        let residue = value % pow10;
        value /= pow10;
        dec_exponent += insignificant as i32;
        if residue >= pow10 >> 1 {
            value += 1;
        }
    }
    let text = value.to_string();
    let kept = text.trim_end_matches('0');
    dec_exponent += (text.len() - kept.len()) as i32;
    Digits {
        digits: kept.as_bytes().to_vec(),
        dec_exponent: dec_exponent + kept.len() as i32,
    }
}

/// Java's text is in E form (`1.0E8`, `1.0E-4`) outside 10^-3 ≤ |d| < 10^7.
fn e_form(dec_exp: i32) -> bool {
    !(-3..8).contains(&dec_exp)
}

/// The first digit `q` of both digit loops of [`dtoa`] with the stop tests
/// `(low, high)` after it: a 0 that does not stop lowers the decimal
/// exponent instead of being written; in E form, Java does not stop after the
/// first digit. Gives the stop tests the loop starts with.
fn first_digit(
    q: u8,
    (low, high): (bool, bool),
    dec_exp: &mut i32,
    digits: &mut Vec<u8>,
) -> (bool, bool) {
    if q == 0 && !high {
        *dec_exp -= 1;
    } else {
        digits.push(b'0' + q);
    }
    if e_form(*dec_exp) {
        (false, false)
    } else {
        (low, high)
    }
}

/// The JDK's `dtoa`: `fract` holds the significand with its leading one at bit
/// 52, `bin_exp` is the unbiased binary exponent, `n_significant` the
/// significant bits of the value (53 or 24 for normal numbers, fewer for
/// subnormal ones).
fn dtoa(bin_exp: i32, fract: u64, n_significant: i32) -> Digits {
    let tail_zeros = fract.trailing_zeros() as i32;
    let n_fract_bits = 53 - tail_zeros;
    let n_tiny_bits = (n_fract_bits - bin_exp - 1).max(0);
    if (-21..=62).contains(&bin_exp) && n_tiny_bits == 0 {
        let insignificant = if bin_exp > n_significant {
            insignificant_digits_for_pow2(bin_exp - n_significant - 1)
        } else {
            0
        };
        let value = if bin_exp >= 52 {
            fract << (bin_exp - 52)
        } else {
            fract >> (52 - bin_exp)
        };
        return long_digits(value, insignificant);
    }
    let mut dec_exp = estimate_dec_exp(fract, bin_exp);
    let b5 = (-dec_exp).max(0);
    let mut b2 = b5 + n_tiny_bits + bin_exp;
    let s5 = dec_exp.max(0);
    let mut s2 = s5 + n_tiny_bits;
    let m5 = b5;
    let mut m2 = b2 - n_significant;
    let fract = fract >> tail_zeros;
    b2 -= n_fract_bits - 1;
    let common = b2.min(s2);
    b2 -= common;
    s2 -= common;
    m2 -= common;
    if n_fract_bits == 1 {
        m2 -= 1;
    }
    if m2 < 0 {
        b2 -= m2;
        s2 -= m2;
        m2 = 0;
    }
    // E-form output needs two digits: the JDK ignores the stopping test on
    // the first digit then.
    let b_bits = n_fract_bits + b2 + n5_bits(b5);
    let ten_s_bits = s2 + 1 + n5_bits(s5 + 1);
    let mut digits = Vec::with_capacity(20);
    let (low, high, low_digit_difference);
    if b_bits < 64 && ten_s_bits < 64 {
        // The JDK's int and long paths: the same loop in 32- or 64-bit
        // two's-complement arithmetic, overflow included.
        macro_rules! small {
            ($t:ty) => {{
                let p5 = |n: i32| 5u64.pow(n as u32) as $t;
                let mut b = (fract as $t).wrapping_mul(p5(b5)).wrapping_shl(b2 as u32);
                let s = p5(s5).wrapping_shl(s2 as u32);
                let mut m = p5(m5).wrapping_shl(m2 as u32);
                let tens = s.wrapping_mul(10);
                let mut q = b / s;
                b = (b % s).wrapping_mul(10);
                m = m.wrapping_mul(10);
                let (mut lo, mut hi) = first_digit(
                    q as u8,
                    (b < m, b.wrapping_add(m) > tens),
                    &mut dec_exp,
                    &mut digits,
                );
                while !lo && !hi {
                    q = b / s;
                    b = (b % s).wrapping_mul(10);
                    m = m.wrapping_mul(10);
                    if m > 0 {
                        lo = b < m;
                        hi = b.wrapping_add(m) > tens;
                    } else {
                        lo = true;
                        hi = true;
                    }
                    digits.push(b'0' + q as u8);
                }
                let diff = b.wrapping_shl(1).wrapping_sub(tens);
                (lo, hi, diff.signum() as i64)
            }};
        }
        (low, high, low_digit_difference) = if b_bits < 32 && ten_s_bits < 32 {
            small!(i32)
        } else {
            small!(i64)
        };
    } else {
        let s = Big::mul_pow52(1, s5, s2);
        let mut b = Big::mul_pow52(fract, b5, b2);
        let mut m = Big::mul_pow52(1, m5 + 1, m2 + 1);
        let ten_s = Big::mul_pow52(1, s5 + 1, s2 + 1);
        let stops = |b: &Big, m: &Big| {
            (
                b.cmp(m).is_lt(),
                ten_s.cmp(&b.add(m)) != std::cmp::Ordering::Greater,
            )
        };
        let q = b.quo_rem_10(&s);
        let (mut lo, mut hi) = first_digit(q as u8, stops(&b, &m), &mut dec_exp, &mut digits);
        while !lo && !hi {
            let q = b.quo_rem_10(&s);
            m.mul_small(10);
            (lo, hi) = stops(&b, &m);
            digits.push(b'0' + q as u8);
        }
        low_digit_difference = if hi && lo {
            b.shl(1);
            match b.cmp(&ten_s) {
                std::cmp::Ordering::Less => -1,
                std::cmp::Ordering::Equal => 0,
                std::cmp::Ordering::Greater => 1,
            }
        } else {
            0
        };
        (low, high) = (lo, hi);
    }
    let mut out = Digits {
        digits,
        dec_exponent: dec_exp + 1,
    };
    if high {
        if low {
            if low_digit_difference == 0 {
                if out.digits.last().is_some_and(|d| d & 1 != 0) {
                    out.round_up();
                }
            } else if low_digit_difference > 0 {
                out.round_up();
            }
        } else {
            out.round_up();
        }
    }
    out
}

/// The JDK's `toJavaFormatString` layout of `digits`.
fn layout(negative: bool, d: &Digits) -> String {
    let digits = std::str::from_utf8(&d.digits).unwrap_or("0");
    let n = digits.len();
    let e = d.dec_exponent;
    let mut out = String::with_capacity(n + 8);
    if negative {
        out.push('-');
    }
    if e > 0 && e < 8 {
        let int_len = (n as i32).min(e) as usize;
        out.push_str(&digits[..int_len]);
        if (int_len as i32) < e {
            out.extend(std::iter::repeat_n('0', (e as usize) - int_len));
            out.push_str(".0");
        } else {
            out.push('.');
            if int_len < n {
                out.push_str(&digits[int_len..]);
            } else {
                out.push('0');
            }
        }
    } else if e <= 0 && e > -3 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-e) as usize));
        out.push_str(digits);
    } else {
        out.push_str(&digits[..1]);
        out.push('.');
        out.push_str(if n > 1 { &digits[1..] } else { "0" });
        out.push('E');
        out.push_str(&(e - 1).to_string());
    }
    out
}

/// Java's `Double.toString(d)` as JDK 8 … 18 write it (`4.9E-324`,
/// `2.2250738585072014E-308`, `9.999999999999999E22` for `1.0E23`, `0.001`, `100.0`, `-0.0`, `NaN`).
pub fn java_double_to_string(d: f64) -> String {
    special_text(d).map_or_else(|| finite_text(d < 0.0, d.to_bits(), 52, 11), str::to_owned)
}

/// Java's `Float.toString(f)` as JDK 8 … 18 write it (`1.4E-45`,
/// `-1.17549435E-38`, `3.8058023`, `1.0E8`).
pub fn java_float_to_string(f: f32) -> String {
    // Widening keeps NaN, the infinities and the sign of zero.
    special_text(f64::from(f)).map_or_else(
        || finite_text(f < 0.0, u64::from(f.to_bits()), 23, 8),
        str::to_owned,
    )
}

/// The texts Java writes for NaN, the infinities and the zeros; `None` for any
/// other value.
fn special_text(d: f64) -> Option<&'static str> {
    if d.is_nan() {
        Some("NaN")
    } else if d.is_infinite() {
        Some(if d > 0.0 { "Infinity" } else { "-Infinity" })
    } else if d == 0.0 {
        Some(if d.is_sign_negative() { "-0.0" } else { "0.0" })
    } else {
        None
    }
}

/// The text of a finite non-zero IEEE 754 value whose `bits` (sign bit
/// highest) have `frac_bits` fraction bits above which stand `exp_bits`
/// exponent bits: a `double` is (52, 11), a `float` (23, 8). The significand
/// is widened to a double's 53 bits, so both share one [`dtoa`].
fn finite_text(negative: bool, bits: u64, frac_bits: u32, exp_bits: u32) -> String {
    let bias = (1i32 << (exp_bits - 1)) - 1;
    let mut fract = bits & ((1u64 << frac_bits) - 1);
    let mut bin_exp = ((bits >> frac_bits) & ((1u64 << exp_bits) - 1)) as i32;
    let n_significant;
    if bin_exp == 0 {
        // Subnormal: normalise so the leading one sits at bit `frac_bits`.
        let leading = fract.leading_zeros() as i32;
        let shift = leading - (63 - frac_bits as i32);
        fract <<= shift;
        bin_exp = 1 - shift;
        n_significant = 64 - leading;
    } else {
        fract |= 1u64 << frac_bits;
        n_significant = frac_bits as i32 + 1;
    }
    layout(
        negative,
        &dtoa(bin_exp - bias, fract << (52 - frac_bits), n_significant),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jdk17_texts() {
        let d = java_double_to_string;
        assert_eq!(d(1.0e8), "1.0E8");
        assert_eq!(d(0.0), "0.0");
        assert_eq!(d(-0.0), "-0.0");
        assert_eq!(d(f64::NAN), "NaN");
        assert_eq!(d(f64::INFINITY), "Infinity");
        assert_eq!(d(f64::NEG_INFINITY), "-Infinity");
        assert_eq!(d(5.0e-4), "5.0E-4");
        assert_eq!(d(0.001), "0.001");
        assert_eq!(d(0.008), "0.008");
        assert_eq!(d(1.0), "1.0");
        assert_eq!(d(-2.5), "-2.5");
        assert_eq!(d(100.0), "100.0");
        assert_eq!(d(9999999.0), "9999999.0");
        assert_eq!(d(1.0e7), "1.0E7");
        assert_eq!(d(1.25e7), "1.25E7");
        assert_eq!(d(3.375000000005457e-5), "3.375000000005457E-5");
        assert_eq!(d(0.15782399999989138), "0.15782399999989138");
        assert_eq!(d(3.28961815494511), "3.28961815494511");
        let f = java_float_to_string;
        assert_eq!(f(3.8058023), "3.8058023");
        assert_eq!(f(6.678097e-4), "6.678097E-4");
        assert_eq!(f(1.0e8), "1.0E8");
        assert_eq!(f(0.0), "0.0");
        assert_eq!(f(-0.0), "-0.0");
        assert_eq!(f(f32::NAN), "NaN");
        assert_eq!(f(f32::INFINITY), "Infinity");
        assert_eq!(f(1.6666666), "1.6666666");
        assert_eq!(f(0.0039794506), "0.0039794506");
        assert_eq!(f(3.375e-5), "3.375E-5");
        assert_eq!(f(2.1205138e-4), "2.1205138E-4");
        // Checked against Java 17: integer-valued numbers print their exact digits,
        // ties go to the even digit.
        assert_eq!(f(f32::from_bits(0x4c84fd59)), "6.9724872E7");
        assert_eq!(f(f32::from_bits(0x5efaa97c)), "9.0310521E18");
        assert_eq!(f(f32::from_bits(0x4a5e6ed9)), "3644342.2");
        assert_eq!(f(f32::from_bits(0x45d8a240)), "6932.2812");
        assert_eq!(f(1.0e7), "1.0E7");
        assert_eq!(f(16777216.0), "1.6777216E7");
        assert_eq!(
            d(f64::from_bits(0x436644c09b8db2d7)),
            "5.0144348174390968E16"
        );
        assert_eq!(
            d(f64::from_bits(0xc3629a6084b4bd62)),
            "-4.1890311318137616E16"
        );
        assert_eq!(d(1.0e22), "1.0E22");
        assert_eq!(d(f64::MAX), "1.7976931348623157E308");
        assert_eq!(d(f64::MIN_POSITIVE), "2.2250738585072014E-308");
        assert_eq!(d(9999999.999999998), "9999999.999999998");
        // The odd cases: subnormals, extremes, powers of ten at the edges.
        assert_eq!(d(f64::from_bits(1)), "4.9E-324");
        assert_eq!(d(-f64::from_bits(1)), "-4.9E-324");
        assert_eq!(d(1.0e23), "9.999999999999999E22");
        assert_eq!(d(2.0e23), "1.9999999999999998E23");
        assert_eq!(d(1.0e-4), "1.0E-4");
        assert_eq!(d(0.1), "0.1");
        assert_eq!(f(f32::from_bits(1)), "1.4E-45");
        assert_eq!(f(-f32::MIN_POSITIVE), "-1.17549435E-38");
        assert_eq!(f(f32::MAX), "3.4028235E38");
        assert_eq!(f(0.1), "0.1");
    }
}
