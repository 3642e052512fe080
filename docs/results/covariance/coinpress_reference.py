"""Reference values for crates/eval/src/coinpress_covariance.rs
(test `noise_free_run_matches_the_authors_code`): a numpy transcription of the authors'
cov_est / cov_est_step (algos.py) and psd_proj_symm (utils.py) from
github.com/twistedcubic/coin-press at 9c74725, with the noise Y set to zero
(rho does not matter then), u = K = 4, on 40 fixed rows in R^3. Run: python3 coinpress_reference.py
"""
import numpy as np, math
def tail(d,b): return (d + 2*(d*math.log(1/b))**0.5 + 2*math.log(1/b))**0.5
def psd_proj_symm(S):
    U,D,Vt = np.linalg.svd(S)
    D = np.clip(D,0,None)
    return U@np.diag(D)@U.T
def step(X,A,rho,n,d):
    W = X@A
    gamma = tail(d,0.1)
    eta = 0.5*(2*np.sqrt(d/n) + (np.sqrt(d/n))**2)
    nrm = np.sqrt((W**2).sum(-1,keepdims=True))
    ratio = gamma/nrm
    mask = (ratio<1).squeeze()
    W[mask] = W[mask]*ratio[mask]
    Z = W.T@W/n  # Y = 0
    Z = psd_proj_symm(Z)
    U = Z + eta*np.eye(d)
    inv = np.linalg.inv(U)
    iU,iD,iVt = np.linalg.svd(inv)
    A = (iU@np.diag(np.sqrt(iD))@iVt)@A
    return A,Z,mask.sum()
def cov_est(X,u,t):
    n,d = X.shape
    A = np.eye(d)/np.sqrt(u)
    for i in range(t-1):
        A,Z,c = step(X,A,1.0,n,d); print("clipped",c)
    A_t,Z_t,c = step(X,A,1.0,n,d); print("clipped",c)
    Ai = np.linalg.inv(A)
    return Ai@Z_t@Ai
m,d=40,3
scale=[1.0,0.4,0.2]
X=np.array([[((i*7+k*13)%17-8)*scale[k]*(4.0 if i%10==0 else 1.0) + 0.3*((i*k)%5) for k in range(d)] for i in range(m)],dtype=float)
np.set_printoptions(precision=17)
for t in [1,2,3]:
    C=cov_est(X.copy(),4.0,t)
    print("T",t, repr(C.flatten().tolist()))
# The paper's convention: w_i = A x_i (W = X A^T), output A^{-1} Z A^{-T}.
def cov_est_paper(X,u,t):
    n,d=X.shape
    A=np.eye(d)/np.sqrt(u)
    gamma=tail(d,0.1); eta=0.5*(2*np.sqrt(d/n)+d/n)
    for i in range(t):
        W=X@A.T
        nrm=np.linalg.norm(W,axis=1); s=np.minimum(1,gamma/nrm); W=W*s[:,None]
        Z=psd_proj_symm(W.T@W/n)
        if i<t-1:
            ev,V=np.linalg.eigh(Z+eta*np.eye(d)); A=(V@np.diag(ev**-0.5)@V.T)@A
    Ai=np.linalg.inv(A); return Ai@Z@Ai.T
for t in [1,2,3]:
    print("paper T",t,repr(cov_est_paper(X.copy(),4.0,t).flatten().tolist()))
