/**
 * Mutation testing of the rule modules (`npm run mutate`, not part of `npm test`): access
 * checks, limits and error codes, against the unit tests. Incremental: the result of the last
 * run is kept in reports/, so a second run only mutates and re-tests what changed.
 */
export default {
	packageManager: "npm",
	testRunner: "jest",
	// The project's Jest runs the TypeScript sources as native ES modules.
	testRunnerNodeArgs: ["--experimental-vm-modules", "--no-warnings=ExperimentalWarning"],
	jest: {
		projectType: "custom",
		configFile: "jest.config.js",
		config: { testMatch: ["<rootDir>/test/unit/**/*.test.ts"] }
	},
	checkers: ["typescript"],
	tsconfigFile: "tsconfig.json",
	coverageAnalysis: "perTest",
	mutate: [
		"services/memos/memo-access.ts",
		"services/attachments/attachment-access.ts",
		"services/auth/user-access.ts",
		"services/instance/setting-access.ts",
		"services/spaces/space-access.ts",
		"services/spaces/admin-guard.ts",
		"shared/page-token.ts",
		"services/attachments/attachment-fields.ts",
		"services/spaces/space-input.ts",
		"services/ai/transcribe-request.ts",
		"shared/errors.ts",
		"services/gateway/status.ts"
	],
	incremental: true,
	incrementalFile: "reports/stryker-incremental.json",
	reporters: ["clear-text", "progress", "html"],
	htmlReporter: { fileName: "reports/mutation/index.html" },
	concurrency: 1,
	thresholds: { high: 90, low: 80, break: null },
	tempDirName: ".stryker-tmp"
};
