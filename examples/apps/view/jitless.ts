// Imported first by the view, before ext-apps builds its zod schemas (zod reads this setting when a
// schema is built). A view's policy has no 'unsafe-eval' (the spec's template): zod would try
// `new Function` to compile its parsers, and each try is reported as a CSP violation.
import { config } from 'zod/v4/core';

config({ jitless: true });
