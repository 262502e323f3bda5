import { base } from "./stryker.config.mjs";

/**
 * `npm run mutate:rules`: every rule module (the services' plain modules and shared/), not the
 * Moleculer wiring (service schemas, mixins, contracts, deps) that only the API and cluster
 * suites exercise. Its own incremental file, so it and `npm run mutate` do not undo each other.
 */
export default {
	...base,
	mutate: [
		"services/*/**/*.ts",
		"shared/**/*.ts",
		"!**/*.service.ts",
		"!**/*.mixin.ts",
		"!**/*.contract.ts",
		"!**/*-deps.ts",
		"!services/main.ts",
		"!services/catalog.ts"
	],
	incrementalFile: "reports/stryker-rules-incremental.json",
	htmlReporter: { fileName: "reports/mutation-rules/index.html" },
	jsonReporter: { fileName: "reports/mutation-rules/mutation.json" }
};
