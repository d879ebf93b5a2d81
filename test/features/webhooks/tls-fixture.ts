/**
 * A self-signed certificate for `hooks.example.test` (valid until 2126), for delivery tests over TLS.
 * Test-only key material: it protects nothing.
 */
export const TEST_TLS_HOSTNAME = 'hooks.example.test';

export const TEST_TLS_KEY = `
-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg0yuNUeGXHW9vjWgU
IWiMlLaMV2iqhOSY/+2W2s1w98ahRANCAARHidT95xzcJwUPNgnihBLs0kwsXbOu
lZhEtTD6dqthfZVOJIp23O6Oxg6rfq0SWkIutWmr/139HtFlOOenXNqd
-----END PRIVATE KEY-----
`;

export const TEST_TLS_CERT = `
-----BEGIN CERTIFICATE-----
MIIBsTCCAVagAwIBAgIUaD7R47QT1fheiOyGHogAQfPzWxIwCgYIKoZIzj0EAwIw
HTEbMBkGA1UEAwwSaG9va3MuZXhhbXBsZS50ZXN0MCAXDTI2MTEyMjA0MDA0NFoY
DzIxMjYxMDI5MDQwMDQ0WjAdMRswGQYDVQQDDBJob29rcy5leGFtcGxlLnRlc3Qw
WTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAARHidT95xzcJwUPNgnihBLs0kwsXbOu
lZhEtTD6dqthfZVOJIp23O6Oxg6rfq0SWkIutWmr/139HtFlOOenXNqdo3IwcDAd
BgNVHQ4EFgQUyZk3VaDmD6sw5IW0oY2uka3Suj4wHwYDVR0jBBgwFoAUyZk3VaDm
D6sw5IW0oY2uka3Suj4wHQYDVR0RBBYwFIISaG9va3MuZXhhbXBsZS50ZXN0MA8G
A1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDSQAwRgIhAJDLDdH7rq4FPn8f9kdd
8pDGYT+X+klX3zGvJMVUzRK3AiEArlyooTV9hvZ/1U+vMFln2o7ji94MgyAcpzoW
g7emWGY=
-----END CERTIFICATE-----
`;
