/*
 * Dispatch-table entries checked against the core's types.
 *
 * Every OSSL_DISPATCH entry casts its function to void (*)(void), which
 * hides a function of the wrong type or in the wrong slot. CPT_FN puts the
 * function beside a null pointer of the slot's OSSL_FUNC_<op>_<name>_fn type
 * in a conditional expression: the two must have compatible types, or the
 * build fails (-Werror). pkcs11-provider gets the same check by declaring
 * each function with its _fn type; checking the entry also catches a right
 * function in a wrong slot.
 */
#ifndef CPTPROV_DISPATCH_H
#define CPTPROV_DISPATCH_H

#include <openssl/core_dispatch.h>

#define CPT_FN(id, fntype, fn) \
    { OSSL_FUNC_##id, (void (*)(void))(1 ? (fn) : (OSSL_FUNC_##fntype##_fn *)0) }
#define CPT_FN_END { 0, NULL }

#endif
