/** Developer tools: code generators and explanations for integrating this service's licensing into apps. */
export { generateLicenseIntegration } from "./integration.ts";
export { explainLicensing } from "./explain.ts";
export { generateServerConfig, serverConfigFiles } from "./server-config.ts";
export { generateTestLicenseKey, TEST_KEY_MARKER } from "./test-key.ts";
export * from "./options.ts";
export { checkServerUrl } from "./inputs.ts";
