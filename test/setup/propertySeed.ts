// Property tests (fast-check) without a seed of their own take a random one in the quick loop, so that each run
// tries new cases, and one fixed seed under CI=true, so that CI's verdict is the commit's and not the draw's. A
// failure prints its seed; KPROF_FC_SEED=<seed> runs that draw again anywhere.

import fc from 'fast-check';

/** The seed of CI's runs (any fixed number: changed only with a reason, as it changes the cases CI tries). */
const CI_SEED = 20_261_207;

const given = process.env.KPROF_FC_SEED;
const seed = given !== undefined && given !== '' ? Number(given) : process.env.CI === 'true' ? CI_SEED : undefined;
if (seed !== undefined && Number.isInteger(seed)) fc.configureGlobal({ ...fc.readConfigureGlobal(), seed });
