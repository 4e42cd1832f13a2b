/**
 * Identity for Fencepost's services and their callers (docs/security.md): the roles ({@link
 * dev.fencepost.security.FencepostRole}), an application's endpoint rules ({@link
 * dev.fencepost.security.EndpointAccess}), who is calling ({@link
 * dev.fencepost.security.CurrentCaller}), and outbound tokens ({@link
 * dev.fencepost.security.BearerTokenSource}). Implementations and auto-configuration live in {@code
 * impl}.
 */
package dev.fencepost.security;
