/** Developer tools: code generators and explanations for integrating this service's licensing into apps. */
export { generateLicenseIntegration, licenseIntegrationFiles, defaultServerUrl, type LicenseIntegrationArgs, type IntegrationFile } from "./integration.ts";
export { explainLicensing } from "./explain.ts";
export { generateServerConfig, serverConfigFiles, type ServerConfigArgs, type ServerConfigFile } from "./server-config.ts";
export { generateTestLicenseKey, TEST_KEY_MARKER, type TestLicenseKey } from "./test-key.ts";
export * from "./options.ts";
export { APP_ID_PATTERN, checkAppId, checkDomain, checkServerUrl, DEFAULT_APP_ID, DEFAULT_DOMAIN } from "./inputs.ts";
