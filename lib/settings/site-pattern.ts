/** The site-pattern grammar, without zod (the popup checks patterns too). */

/** A Chrome match pattern for "Sites to scan", e.g. `https://kibana.example.org/*`. */
export const SITE_PATTERN = /^(https?|\*):\/\/(\*|\*\.[^/*:]+|[^/*:]+)(:\d{1,5})?\/.*$/;
export const SITE_PATTERN_HINT = 'Use a match pattern such as https://kibana.example.org/* or https://*.example.org/*';
