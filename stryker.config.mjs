/**
 * Mutation testing (`npm run mutate`, not part of `npm test`) of the access-check, limit and
 * error-code modules, against the unit and service tests. `npm run mutate:rules` runs the
 * same on every rule module (stryker.rules.config.mjs). Incremental: the last run's result is
 * kept in reports/ (ignored by git: it is a cache of this working copy), so a second run only
 * mutates and re-tests what changed.
 */

/** The modules issue 20's 80 % target is measured on; README "Tests" lists them too. */
export const ACCESS_LIMIT_ERROR_MODULES = [
	// Access checks: who may read or change what.
	"services/memos/memo-access.ts",
	"services/attachments/attachment-access.ts",
	"services/auth/user-access.ts",
	"services/instance/setting-access.ts",
	"services/spaces/space-access.ts",
	"services/spaces/admin-guard.ts",
	"services/gateway/anonymous-access.ts",
	// Limits of contract 14.
	"shared/ids.ts",
	// Page size 50 / 1000 (coerced) and the page token bound to its list.
	"shared/paging/page-token.ts",
	"services/attachments/attachment-fields.ts",
	"services/attachments/upload/upload-sessions.ts",
	"services/memos/memo-fields.ts",
	"services/spaces/space-input.ts",
	"services/ai/transcribe-request.ts",
	"services/instance/setting-validation.ts",
	"services/gateway/body-limits.ts",
	// Error codes and their HTTP mapping.
	"shared/errors.ts",
	"services/gateway/status.ts",
	"services/gateway/client-errors.ts"
];

/** The unit tests that state those modules' rules: Jest loads only these per mutant. */
const ACCESS_LIMIT_ERROR_TESTS = [
	"access-rules",
	"memos-rules",
	"spaces-rules",
	"instance-settings",
	"ids",
	"page-token",
	"attachments-file-headers",
	"upload-sessions",
	"memo-fields",
	"ai-transcribe",
	"gateway-status",
	"gateway-limits",
	"error-codes"
].map(name => `<rootDir>/test/unit/${name}.test.ts`);

/** Options shared with stryker.rules.config.mjs. */
export const base = {
	packageManager: "npm",
	testRunner: "jest",
	// The project's Jest runs the TypeScript sources as native ES modules.
	testRunnerNodeArgs: ["--experimental-vm-modules", "--no-warnings=ExperimentalWarning"],
	jest: {
		projectType: "custom",
		configFile: "jest.config.js",
		// The fast tiers only: the API and cluster suites start whole apps per test file.
		config: { testMatch: ["<rootDir>/test/unit/**/*.test.ts", "<rootDir>/test/service/**/*.test.ts"] },
		// Per mutant, Jest loads only the test files that import the mutated module...
		enableFindRelatedTests: true
	},
	// ...and of those only the tests that executed the mutant in the first (dry) run.
	coverageAnalysis: "perTest",
	// A static mutant (a module-level value, evaluated once at import) cannot be traced to tests,
	// so each would re-run every related test file: most of the run's time for a few percent of
	// the mutants. Their tables and constants are asserted whole instead (error-codes.test.ts,
	// the limit constants in each module's tests); the report lists them as ignored.
	ignoreStatic: true,
	checkers: ["typescript"],
	tsconfigFile: "tsconfig.json",
	incremental: true,
	reporters: ["clear-text", "progress", "html", "json"],
	// The machine is shared (README "Tests"): one test process unless told otherwise (--concurrency).
	concurrency: 1,
	thresholds: { high: 90, low: 80, break: null },
	// A busy machine stalls test runs for seconds: a generous time-out keeps a stall from
	// counting as a mutant detected by time-out (an endless loop still is, just later).
	timeoutMS: 30000,
	tempDirName: ".stryker-tmp",
	// Build output and local data are not sources: the sandbox does without them.
	ignorePatterns: ["dist", "data", "coverage"]
};

export default {
	...base,
	mutate: ACCESS_LIMIT_ERROR_MODULES,
	jest: { ...base.jest, config: { testMatch: ACCESS_LIMIT_ERROR_TESTS } },
	incrementalFile: "reports/stryker-incremental.json",
	htmlReporter: { fileName: "reports/mutation/index.html" },
	jsonReporter: { fileName: "reports/mutation/mutation.json" }
};
