/** The product and API interface version (contract 4.10 and 15); package.json carries the same. */
export const VERSION = "0.0.1";
